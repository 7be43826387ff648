//! The timing tree: [`Clock`] statistics, [`Node`]s and the [`Profiler`]
//! that records them (see the [module documentation](crate::profile) for the
//! semantics of every call).

use super::{DEFAULT_LEVEL, LEVEL_DISABLED, LEVEL_KERNEL, LEVEL_KERNEL_DETAILED};
use std::time::{Duration, Instant};

/// Timing statistics of one tree node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Number of completed intervals.
    pub n: u64,
    /// Sum of all intervals.
    pub total: Duration,
    /// Shortest interval (zero while `n == 0`).
    pub min: Duration,
    /// Longest interval (zero while `n == 0`).
    pub max: Duration,
}

impl Clock {
    /// Records one completed interval.
    pub fn submit(&mut self, d: Duration) {
        if self.n == 0 {
            self.total = d;
            self.min = d;
            self.max = d;
        } else {
            self.total = self.total.saturating_add(d);
            self.min = self.min.min(d);
            self.max = self.max.max(d);
        }
        self.n += 1;
    }

    /// Adds another clock's statistics: counts and totals are summed, min and
    /// max are the overall min and max. An empty clock (`n == 0`) contributes
    /// nothing. (OP2's `operator+=` keeps the smaller of the two maxima; that
    /// slip is not reproduced.)
    pub fn merge(&mut self, other: &Clock) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *other;
            return;
        }
        self.n += other.n;
        self.total = self.total.saturating_add(other.total);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// `total / n`, truncated to whole nanoseconds; zero when `n == 0`.
    pub fn average(&self) -> Duration {
        if self.n == 0 {
            return Duration::ZERO;
        }
        let nanos = self.total.as_nanos() / u128::from(self.n);
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }
}

/// Kind of a tree node (`0` / `1` in JSON and on the wire).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NodeKind {
    /// A section opened by `start`, `enter` or `next`.
    #[default]
    Standard,
    /// A section opened by `enter_kernel`.
    Kernel,
}

/// One section of the timing tree. Children are kept in first-entry order and
/// their names are unique within a parent (regardless of kind).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    pub clock: Clock,
    /// Number of MPI ranks whose trees were merged into this node.
    pub num_ranks: u64,
    /// Each rank's total in this node, in rank order (zero where a rank has
    /// no such node); filled by [`Profiler::merged`] from two or more ranks,
    /// empty otherwise. Written to JSON as `rank_totals` only when filled,
    /// so a one-process file keeps OP2's layout exactly.
    pub rank_totals: Vec<Duration>,
    pub children: Vec<Node>,
}

impl Node {
    /// A fresh standard node with no timings, counted for one rank.
    pub fn new(name: &str) -> Self {
        Node {
            name: name.to_string(),
            kind: NodeKind::Standard,
            clock: Clock::default(),
            num_ranks: 1,
            rank_totals: Vec::new(),
            children: Vec::new(),
        }
    }

    /// Records `theirs` (rank `rank`'s own tree, already merged into this
    /// one) as that rank's column of [`rank_totals`](Self::rank_totals),
    /// every node sized for `nranks`; children are matched by name.
    pub fn record_rank(&mut self, theirs: &Node, rank: usize, nranks: usize) {
        self.size_rank_totals(nranks);
        if let Some(slot) = self.rank_totals.get_mut(rank) {
            *slot = theirs.clock.total;
        }
        for child in &theirs.children {
            if let Some(ours) = self.children.iter_mut().find(|c| c.name == child.name) {
                ours.record_rank(child, rank, nranks);
            }
        }
    }

    fn size_rank_totals(&mut self, nranks: usize) {
        if self.rank_totals.len() < nranks {
            self.rank_totals.resize(nranks, Duration::ZERO);
        }
    }

    /// The immediate child called `name`, if any.
    pub fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Index of the immediate child called `name`, creating it if needed.
    fn child_index(&mut self, name: &str) -> usize {
        match self.children.iter().position(|c| c.name == name) {
            Some(index) => index,
            None => {
                self.children.push(Node::new(name));
                self.children.len() - 1
            }
        }
    }

    /// Adds `other` (typically the same tree from another MPI rank) into this
    /// node: clocks are merged with [`Clock::merge`], `num_ranks` are summed
    /// and children are matched by name, recursively. A child only present in
    /// `other` is appended as a copy (keeping its own `num_ranks`). A node
    /// becomes a kernel if it is a kernel in either tree. The name of `self`
    /// is kept.
    pub fn merge(&mut self, other: &Node) {
        self.clock.merge(&other.clock);
        self.num_ranks += other.num_ranks;
        if other.kind == NodeKind::Kernel {
            self.kind = NodeKind::Kernel;
        }
        for theirs in &other.children {
            match self.children.iter_mut().find(|c| c.name == theirs.name) {
                Some(ours) => ours.merge(theirs),
                None => self.children.push(theirs.clone()),
            }
        }
    }
}

/// A section that is currently open: its index among its parent's children
/// (unused for the root) and when it was entered.
#[derive(Clone, Copy, Debug)]
struct OpenSection {
    index: usize,
    start: Instant,
}

/// Walks from `root` along the child indices of `open[1..]`.
fn node_at_mut<'a>(root: &'a mut Node, open: &[OpenSection]) -> &'a mut Node {
    let mut node = root;
    for section in open.iter().skip(1) {
        node = &mut node.children[section.index];
    }
    node
}

fn node_at<'a>(root: &'a Node, open: &[OpenSection]) -> &'a Node {
    let mut node = root;
    for section in open.iter().skip(1) {
        node = &node.children[section.index];
    }
    node
}

/// The tree profiler. See the [module documentation](crate::profile) for semantics.
#[derive(Clone, Debug)]
pub struct Profiler {
    level: u32,
    root: Option<Node>,
    /// Open sections, outermost (the root) first.
    open: Vec<OpenSection>,
    /// Number of currently open sections that are not recorded at this level.
    extra_depth: usize,
    started: bool,
    /// The root was opened by the library ([`start_implicit`](Self::start_implicit)),
    /// not by the program; holds the level before that start raised it.
    implicit: Option<u32>,
    finished: bool,
    /// Latest instant passed to a timing call while running.
    latest: Option<Instant>,
    /// Reused to build kernel section names.
    name_buf: String,
}

impl Default for Profiler {
    /// A profiler at [`DEFAULT_LEVEL`].
    fn default() -> Self {
        Profiler::new(DEFAULT_LEVEL)
    }
}

impl Profiler {
    /// A profiler at the level `OP_PROFILE_LEVEL` asks for (OP2's default
    /// when unset or unreadable).
    pub fn from_env() -> Self {
        let level = std::env::var("OP_PROFILE_LEVEL").ok();
        Profiler::new(
            level
                .and_then(|v| super::parse_level(&v))
                .unwrap_or(super::DEFAULT_LEVEL),
        )
    }

    /// A profiler at `level` (`OP_PROFILE_LEVEL`); values above 3 are treated
    /// as 3.
    pub fn new(level: u32) -> Self {
        Profiler {
            level: level.min(LEVEL_KERNEL_DETAILED),
            root: None,
            open: Vec::new(),
            extra_depth: 0,
            started: false,
            implicit: None,
            finished: false,
            name_buf: String::new(),
            latest: None,
        }
    }

    /// The current level (0..=3).
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Changes the level; only possible before [`start`](Self::start) (OP2
    /// reads `OP_PROFILE_LEVEL` inside `op_profile_start`). Values above 3 are
    /// treated as 3. Returns whether the level was changed.
    pub fn set_level(&mut self, level: u32) -> bool {
        if self.started {
            return false;
        }
        self.level = level.min(LEVEL_KERNEL_DETAILED);
        true
    }

    /// Whether `start` has been accepted (never at level 0).
    pub fn is_started(&self) -> bool {
        self.started
    }

    /// Whether `end` has been called after an accepted `start`.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Number of sections currently open and recorded (the root counts as
    /// one); 0 before `start` and after `end`.
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// The live tree (`None` before `start` or at level 0). Sections that are
    /// still open have not yet been added to their clocks.
    pub fn root(&self) -> Option<&Node> {
        self.root.as_ref()
    }

    fn running(&self) -> bool {
        self.level > LEVEL_DISABLED && self.started && !self.finished
    }

    fn observe(&mut self, now: Instant) {
        self.latest = Some(match self.latest {
            Some(latest) if latest > now => latest,
            _ => now,
        });
    }

    /// `op_profile_start(name)`: opens the root section called `name`.
    /// Ignored at level 0 and if already started.
    /// A program's `start` after the library's [`start_implicit`](Self::start_implicit)
    /// discards the implicit tree and starts afresh at the level from
    /// before it: a program that uses the profiler gets exactly what it
    /// asked for.
    pub fn start(&mut self, name: &str, now: Instant) {
        if let Some(level) = self.implicit.take() {
            if !self.finished {
                *self = Profiler::new(level);
            }
        }
        if self.level == LEVEL_DISABLED || self.started {
            return;
        }
        self.started = true;
        self.root = Some(Node::new(name));
        self.open = vec![OpenSection {
            index: 0,
            start: now,
        }];
        self.extra_depth = 0;
        self.observe(now);
    }

    /// The library's own `start`, for a program that never calls
    /// `op_profile_start` but asked for a profile file: opens the root
    /// `name` and, unless `keep_level`, raises the level to
    /// [`LEVEL_KERNEL`] so that loops are recorded. A later
    /// [`start`](Self::start) replaces all of it. Ignored when already
    /// started or at level 0.
    pub fn start_implicit(&mut self, name: &str, keep_level: bool, now: Instant) {
        if self.level == LEVEL_DISABLED || self.started {
            return;
        }
        let before = self.level;
        if !keep_level {
            self.level = self.level.max(LEVEL_KERNEL);
        }
        self.start(name, now);
        self.implicit = Some(before);
    }

    /// `op_profile_end()`: closes every open section (innermost first, all at
    /// `now`), the root included, and freezes the tree. Later timing calls are
    /// ignored.
    pub fn end(&mut self, now: Instant) {
        if !self.running() {
            return;
        }
        self.observe(now);
        self.extra_depth = 0;
        if let Some(root) = self.root.as_mut() {
            while let Some(section) = self.open.last().copied() {
                node_at_mut(root, &self.open)
                    .clock
                    .submit(now.saturating_duration_since(section.start));
                self.open.pop();
            }
        }
        self.open.clear();
        self.finished = true;
    }

    /// `op_profile_enter(name)`: opens the child `name` of the current
    /// section (created on first use). Not recorded — but still counted, so
    /// that the matching `exit` is consumed — when inside an unrecorded
    /// section, or inside a kernel below level 3.
    pub fn enter(&mut self, name: &str, now: Instant) {
        if !self.running() {
            return;
        }
        self.observe(now);
        self.enter_recorded(name, now);
    }

    /// Opens a section if the level records it; returns whether it did.
    fn enter_recorded(&mut self, name: &str, now: Instant) -> bool {
        let Some(root) = self.root.as_mut() else {
            return false;
        };
        let parent = node_at_mut(root, &self.open);
        if self.extra_depth > 0
            || (self.level < LEVEL_KERNEL_DETAILED && parent.kind == NodeKind::Kernel)
        {
            self.extra_depth += 1;
            return false;
        }
        let index = parent.child_index(name);
        self.open.push(OpenSection { index, start: now });
        true
    }

    /// `op_profile_enter_kernel(name, target, variant)`: opens a kernel
    /// section called `"<name>/<target>/<variant>"` (e.g.
    /// `"res_calc/seq/Indirect"`). Recorded only from level 2, and not when
    /// nested inside another kernel below level 3; otherwise it only has to be
    /// matched by an `exit`.
    pub fn enter_kernel(&mut self, name: &str, target: &str, variant: &str, now: Instant) {
        if !self.running() {
            return;
        }
        self.observe(now);
        if self.level < LEVEL_KERNEL {
            self.extra_depth += 1;
            return;
        }
        // The section name in a buffer kept across calls: a loop in steady
        // state allocates nothing here.
        let mut full_name = std::mem::take(&mut self.name_buf);
        full_name.clear();
        for part in [name, "/", target, "/", variant] {
            full_name.push_str(part);
        }
        let recorded = self.enter_recorded(&full_name, now);
        self.name_buf = full_name;
        if recorded {
            if let Some(root) = self.root.as_mut() {
                node_at_mut(root, &self.open).kind = NodeKind::Kernel;
            }
        }
    }

    /// `op_profile_next(name)`: [`exit`](Self::exit) then
    /// [`enter`](Self::enter), both at `now`.
    pub fn next(&mut self, name: &str, now: Instant) {
        self.exit(now);
        self.enter(name, now);
    }

    /// `op_profile_exit()`: closes the innermost open section, adding
    /// `now - entered` to its clock. An unrecorded section is just popped.
    /// Ignored when only the root is open (use [`end`](Self::end)).
    pub fn exit(&mut self, now: Instant) {
        if !self.running() {
            return;
        }
        self.observe(now);
        if self.extra_depth > 0 {
            self.extra_depth -= 1;
            return;
        }
        if self.open.len() <= 1 {
            return;
        }
        if let (Some(root), Some(section)) = (self.root.as_mut(), self.open.last().copied()) {
            node_at_mut(root, &self.open)
                .clock
                .submit(now.saturating_duration_since(section.start));
            self.open.pop();
        }
    }

    /// The tree as it would be if `end` were called at the latest instant seen:
    /// a copy of the live tree with every open section closed then. `None`
    /// before `start` or at level 0.
    pub fn snapshot(&self) -> Option<Node> {
        let mut root = self.root.clone()?;
        if let Some(last) = self.open.last() {
            let at = self.latest.unwrap_or(last.start);
            for depth in (0..self.open.len()).rev() {
                let open = &self.open[..=depth];
                node_at_mut(&mut root, open)
                    .clock
                    .submit(at.saturating_duration_since(open[depth].start));
            }
        }
        Some(root)
    }

    /// Name of the innermost recorded open section, if any.
    pub fn current_section(&self) -> Option<&str> {
        let root = self.root.as_ref()?;
        if self.open.is_empty() {
            return None;
        }
        Some(node_at(root, &self.open).name.as_str())
    }

    /// Merges another profiler's tree (its [`snapshot`](Self::snapshot)) into
    /// this one, as OP2 combines MPI ranks' trees on the root rank (see
    /// [`Node::merge`]). No-op at level 0 or if `other` has no tree.
    pub fn merge(&mut self, other: &Profiler) {
        if let Some(tree) = other.snapshot() {
            self.merge_tree(&tree);
        }
    }

    /// Merges a tree (e.g. another rank's, decoded by
    /// [`Profiler::merge_encoded`]) into this profiler's tree. No-op at level 0. If this profiler was never started,
    /// it adopts a copy of `tree` and behaves as finished from then on.
    /// Merging into a running profiler is allowed; open sections stay open.
    pub fn merge_tree(&mut self, tree: &Node) {
        if self.level == LEVEL_DISABLED {
            return;
        }
        match self.root.as_mut() {
            Some(root) => root.merge(tree),
            None => {
                self.root = Some(tree.clone());
                self.started = true;
                self.finished = true;
            }
        }
    }

    /// Fills [`Node::rank_totals`] of the merged tree from every rank's own
    /// tree (`trees[r]` is rank `r`'s; `None` for a rank without a profile).
    pub fn record_ranks(&mut self, trees: &[Option<Node>]) {
        let Some(root) = self.root.as_mut() else {
            return;
        };
        for (rank, tree) in trees.iter().enumerate() {
            match tree {
                Some(t) => root.record_rank(t, rank, trees.len()),
                None => root.size_rank_totals(trees.len()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::test_util::{at, ms, ns, rank_profile};

    #[test]
    fn new_clamps_level_and_default_is_one() {
        assert_eq!(Profiler::new(7).level(), 3);
        assert_eq!(Profiler::default().level(), DEFAULT_LEVEL);
        assert_eq!(DEFAULT_LEVEL, 1);
    }

    /// The library's implicit start records loops from level 1 up (unless
    /// the level was asked for); a program's own start replaces it with
    /// exactly what OP2 would record (its level, its root, from then on).
    #[test]
    fn implicit_start_records_loops_and_a_programs_start_replaces_it() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start_implicit("prog", false, at(t, 0));
        assert_eq!(p.level(), LEVEL_KERNEL);
        p.enter_kernel("k", "seq", "Direct", at(t, 1));
        p.exit(at(t, 3));
        let implicit = p.snapshot().unwrap();
        assert_eq!(implicit.name, "prog");
        assert_eq!(implicit.child("k/seq/Direct").unwrap().clock.total, ms(2));
        p.start("App", at(t, 4));
        assert_eq!(p.level(), 1);
        p.enter("user", at(t, 4));
        p.exit(at(t, 6));
        p.enter_kernel("k", "seq", "Direct", at(t, 6));
        p.exit(at(t, 7));
        p.start("Again", at(t, 7));
        p.end(at(t, 10));
        let root = p.snapshot().unwrap();
        assert_eq!(root.name, "App");
        assert_eq!(root.clock.total, ms(6));
        assert_eq!(root.children.len(), 1, "{root:?}");
        assert_eq!(root.child("user").unwrap().clock.total, ms(2));

        let mut kept = Profiler::new(1);
        kept.start_implicit("prog", true, at(t, 0));
        assert_eq!(kept.level(), 1);
        kept.enter_kernel("k", "seq", "Direct", at(t, 1));
        kept.exit(at(t, 3));
        kept.end(at(t, 4));
        assert!(kept.snapshot().unwrap().children.is_empty());

        let mut off = Profiler::new(0);
        off.start_implicit("prog", false, at(t, 0));
        assert!(off.snapshot().is_none());
        let mut started = Profiler::new(3);
        started.start("Mine", at(t, 0));
        started.start_implicit("prog", false, at(t, 1));
        assert_eq!(started.snapshot().unwrap().name, "Mine");
    }

    #[test]
    fn set_level_only_before_start() {
        let base = Instant::now();
        let mut p = Profiler::new(1);
        assert!(p.set_level(2));
        assert_eq!(p.level(), 2);
        assert!(p.set_level(9));
        assert_eq!(p.level(), 3);
        p.start("App", base);
        assert!(!p.set_level(0));
        assert_eq!(p.level(), 3);
    }

    #[test]
    fn clock_statistics() {
        let mut c = Clock::default();
        assert_eq!(c.average(), Duration::ZERO);
        c.submit(ms(3));
        c.submit(ms(1));
        c.submit(ms(8));
        assert_eq!(c.n, 3);
        assert_eq!(c.total, ms(12));
        assert_eq!(c.min, ms(1));
        assert_eq!(c.max, ms(8));
        assert_eq!(c.average(), ms(4));
        let mut odd = Clock::default();
        odd.submit(ns(10));
        odd.submit(ns(11));
        assert_eq!(odd.average(), ns(10)); // truncated
    }

    #[test]
    fn clock_merge_takes_true_min_and_max() {
        let mut a = Clock::default();
        a.submit(ms(5));
        a.submit(ms(7));
        let mut b = Clock::default();
        b.submit(ms(2));
        b.submit(ms(9));
        b.submit(ms(4));
        a.merge(&b);
        assert_eq!(a.n, 5);
        assert_eq!(a.total, ms(27));
        assert_eq!(a.min, ms(2));
        assert_eq!(a.max, ms(9));

        let mut empty = Clock::default();
        empty.merge(&b);
        assert_eq!(empty, b);
        let before = b;
        b.merge(&Clock::default());
        assert_eq!(b, before);
    }

    #[test]
    fn nested_sections() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.enter("B", at(t, 2));
        assert_eq!(p.depth(), 3);
        assert_eq!(p.current_section(), Some("B"));
        p.exit(at(t, 5));
        p.exit(at(t, 11));
        p.end(at(t, 20));
        assert!(p.is_finished());
        assert_eq!(p.depth(), 0);
        assert_eq!(
            p.output(),
            "App *1 total: 20.00ms\n    A *1 total: 10.00ms\n        B *1 total: 3.000ms\n\n"
        );
        let root = p.root().unwrap();
        assert_eq!(root.children[0].children[0].clock.total, ms(3));
    }

    #[test]
    fn repeated_sections_accumulate() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        for (a, b) in [(1, 3), (4, 10), (10, 11)] {
            p.enter("A", at(t, a));
            p.exit(at(t, b));
        }
        p.enter("Z", at(t, 12));
        p.exit(at(t, 13));
        p.end(at(t, 15));
        let root = p.root().unwrap();
        assert_eq!(root.children.len(), 2);
        let a = &root.children[0];
        assert_eq!((a.clock.n, a.clock.total), (3, ms(9)));
        assert_eq!((a.clock.min, a.clock.max), (ms(1), ms(6)));
        assert_eq!(
            p.output(),
            "App *1 total: 15.00ms\n    \
             A *3 total: 9.000ms (average: 3.000ms, min: 1.000ms, max: 6.000ms)\n    \
             Z *1 total: 1.000ms\n\n"
        );
    }

    #[test]
    fn same_name_under_different_parents_is_distinct() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 0));
        p.enter("X", at(t, 1));
        p.exit(at(t, 2));
        p.exit(at(t, 3));
        p.enter("X", at(t, 3));
        p.exit(at(t, 7));
        p.end(at(t, 8));
        let root = p.root().unwrap();
        assert_eq!(
            root.child("A").unwrap().child("X").unwrap().clock.total,
            ms(1)
        );
        assert_eq!(root.child("X").unwrap().clock.total, ms(4));
    }

    #[test]
    fn next_closes_and_opens_a_sibling() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.next("B", at(t, 4));
        p.next("A", at(t, 6));
        p.exit(at(t, 7));
        p.end(at(t, 10));
        let root = p.root().unwrap();
        let names: Vec<&str> = root.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["A", "B"]);
        assert_eq!(root.children[0].clock.n, 2);
        assert_eq!(root.children[0].clock.total, ms(4));
        assert_eq!(root.children[1].clock.total, ms(2));
        assert!(root.children.iter().all(|c| c.children.is_empty()));
    }

    #[test]
    fn level_two_ignores_nested_kernels_level_three_records_them() {
        let t = Instant::now();
        for level in [2, 3] {
            let mut p = Profiler::new(level);
            p.start("App", at(t, 0));
            p.enter_kernel("outer", "seq", "Direct", at(t, 0));
            p.enter_kernel("inner", "seq", "Direct", at(t, 1));
            p.exit(at(t, 2));
            p.exit(at(t, 3));
            p.end(at(t, 3));
            let outer = &p.root().unwrap().children[0];
            assert_eq!(outer.clock.total, ms(3));
            if level == 2 {
                assert!(outer.children.is_empty());
            } else {
                assert_eq!(outer.children[0].name, "inner/seq/Direct");
                assert_eq!(outer.children[0].kind, NodeKind::Kernel);
            }
        }
    }

    #[test]
    fn level_zero_records_and_prints_nothing() {
        let t = Instant::now();
        let mut p = Profiler::new(0);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.enter_kernel("k", "seq", "Direct", at(t, 2));
        p.next("B", at(t, 3));
        p.exit(at(t, 4));
        p.exit(at(t, 5));
        p.end(at(t, 6));
        assert!(!p.is_started());
        assert!(p.root().is_none());
        assert_eq!(p.output(), "");
        assert_eq!(p.output_json(), None);

        let mut other = Profiler::new(1);
        other.start("App", at(t, 0));
        other.end(at(t, 1));
        p.merge(&other);
        assert!(p.root().is_none());
        assert_eq!(p.output(), "");
    }

    #[test]
    fn calls_before_start_are_ignored() {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.enter("A", at(t, 0));
        p.enter_kernel("k", "seq", "Direct", at(t, 0));
        p.next("B", at(t, 0));
        p.exit(at(t, 1));
        p.exit(at(t, 1));
        p.end(at(t, 1));
        assert!(!p.is_started());
        assert_eq!(p.output(), "");
        assert_eq!(p.output_json(), None);
        assert_eq!(p.snapshot(), None);
        assert_eq!(p.current_section(), None);

        p.start("App", at(t, 2));
        p.end(at(t, 3));
        assert_eq!(p.output(), "App *1 total: 1.000ms\n\n");
    }

    #[test]
    fn extra_exit_never_closes_root() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.exit(at(t, 1));
        p.exit(at(t, 1));
        assert_eq!(p.depth(), 1);
        p.enter("A", at(t, 2));
        p.exit(at(t, 3));
        p.exit(at(t, 4)); // ignored
                          // next() at root depth only enters.
        p.next("B", at(t, 5));
        assert_eq!(p.current_section(), Some("B"));
        p.exit(at(t, 6));
        p.end(at(t, 10));
        let root = p.root().unwrap();
        assert_eq!(root.clock.n, 1);
        assert_eq!(root.clock.total, ms(10));
        assert_eq!(root.child("A").unwrap().clock.total, ms(1));
        assert_eq!(root.child("B").unwrap().clock.total, ms(1));
    }

    #[test]
    fn end_closes_open_sections_and_freezes() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.enter_kernel("k", "seq", "Direct", at(t, 2));
        p.enter("MPI Exchanges", at(t, 3)); // ignored at level 2
        p.end(at(t, 10));
        let root = p.root().unwrap();
        let a = root.child("A").unwrap();
        assert_eq!(a.clock.total, ms(9));
        assert_eq!(a.child("k/seq/Direct").unwrap().clock.total, ms(8));
        assert_eq!(root.clock.total, ms(10));

        // Everything after end is ignored.
        let frozen = p.root().cloned();
        p.start("Again", at(t, 11));
        p.enter("C", at(t, 11));
        p.exit(at(t, 12));
        p.end(at(t, 13));
        assert_eq!(p.root().cloned(), frozen);
    }

    #[test]
    fn second_start_is_ignored() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.start("Other", at(t, 2));
        assert_eq!(p.current_section(), Some("A"));
        p.exit(at(t, 3));
        p.end(at(t, 4));
        assert_eq!(p.root().unwrap().name, "App");
    }

    #[test]
    fn output_while_open_uses_latest_instant_without_mutating() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.exit(at(t, 3));
        p.enter("A", at(t, 4));
        p.enter("B", at(t, 6));
        assert_eq!(
            p.output(),
            "App *1 total: 6.000ms\n    \
             A *2 total: 4.000ms (average: 2.000ms, min: 2.000ms, max: 2.000ms)\n        \
             B *1 total: 0.000ns\n\n"
        );
        let json = p.output_json().unwrap();
        assert!(json.contains("\"name\":\"App\""));
        // Live tree untouched: A still has one completed interval.
        assert_eq!(p.root().unwrap().children[0].clock.n, 1);
        assert_eq!(p.root().unwrap().clock.n, 0);

        p.exit(at(t, 7));
        p.exit(at(t, 8));
        p.end(at(t, 9));
        assert_eq!(
            p.output(),
            "App *1 total: 9.000ms\n    \
             A *2 total: 6.000ms (average: 3.000ms, min: 2.000ms, max: 4.000ms)\n        \
             B *1 total: 1.000ms\n\n"
        );
    }

    #[test]
    fn earlier_instants_saturate_to_zero() {
        let t = Instant::now() + Duration::from_secs(1);
        let mut p = Profiler::new(1);
        p.start("App", at(t, 5));
        p.enter("A", at(t, 5));
        p.exit(t); // before the enter
        p.end(at(t, 6));
        let root = p.root().unwrap();
        assert_eq!(root.children[0].clock.total, Duration::ZERO);
        assert_eq!(root.clock.total, ms(1));
    }

    #[test]
    fn merge_sums_counts_and_takes_min_max() {
        let t = Instant::now();
        let mut a = rank_profile(t, 1, false);
        let b = rank_profile(t, 10, true);
        a.merge(&b);
        let root = a.root().unwrap();
        assert_eq!(root.num_ranks, 2);
        assert_eq!((root.clock.n, root.clock.total), (2, ms(55)));
        assert_eq!((root.clock.min, root.clock.max), (ms(5), ms(50)));
        let k = root.child("k/seq/Direct").unwrap();
        assert_eq!(k.kind, NodeKind::Kernel);
        assert_eq!(k.num_ranks, 2);
        assert_eq!((k.clock.n, k.clock.total), (4, ms(33)));
        assert_eq!((k.clock.min, k.clock.max), (ms(1), ms(20)));
        let only = root.child("Only here").unwrap();
        assert_eq!(only.num_ranks, 1);
        assert_eq!(only.clock.total, ms(10));
        assert_eq!(root.children.last().unwrap().name, "Only here");
        assert!(a
            .output()
            .contains("    k/seq/Direct           4  33.00ms  8.250ms  1.000ms  20.00ms\n"));
    }

    #[test]
    fn merge_is_symmetric_in_statistics() {
        let t = Instant::now();
        let mut ab = rank_profile(t, 1, false);
        ab.merge(&rank_profile(t, 3, true));
        let mut ba = rank_profile(t, 3, true);
        ba.merge(&rank_profile(t, 1, false));
        let x = ab.root().unwrap();
        let y = ba.root().unwrap();
        assert_eq!(x.clock, y.clock);
        for child in &x.children {
            assert_eq!(Some(&child.clock), y.child(&child.name).map(|c| &c.clock));
        }
    }

    #[test]
    fn merge_into_unstarted_adopts_and_running_stays_open() {
        let t = Instant::now();
        let other = rank_profile(t, 1, true);

        let mut fresh = Profiler::new(2);
        fresh.merge(&other);
        assert!(fresh.is_finished());
        assert_eq!(fresh.output(), other.output());
        fresh.enter("late", at(t, 100)); // ignored: adopted trees are final
        assert_eq!(fresh.root(), other.root());

        let mut running = Profiler::new(2);
        running.start("App", at(t, 0));
        running.enter("A", at(t, 1));
        running.merge(&other);
        running.exit(at(t, 2));
        running.end(at(t, 3));
        let root = running.root().unwrap();
        assert_eq!(root.child("A").unwrap().clock.total, ms(1));
        assert_eq!(root.clock.n, 2);

        // Merging an unstarted profiler changes nothing.
        let before = running.root().cloned();
        running.merge(&Profiler::new(2));
        assert_eq!(running.root().cloned(), before);
    }

    #[test]
    fn merge_uses_snapshot_of_running_other() {
        let t = Instant::now();
        let mut other = Profiler::new(1);
        other.start("App", at(t, 0));
        other.enter("A", at(t, 1));
        other.enter("B", at(t, 4)); // stays open; latest = 4ms
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.end(at(t, 1));
        p.merge(&other);
        let root = p.root().unwrap();
        assert_eq!(root.clock.total, ms(5));
        assert_eq!(root.child("A").unwrap().clock.total, ms(3));
        assert_eq!(root.child("A").unwrap().child("B").unwrap().clock.n, 1);
    }
}
