//! Execution plans: OP2's two-level colouring, in Rust.
//!
//! A plan cuts the loop set into mini-partitions ("blocks") of `part_size`
//! contiguous elements, colours the blocks so that no two blocks of one colour
//! touch the same indirectly incremented/modified element (blocks of a colour
//! can then run concurrently), and — for the full plan that generated GPU/OpenMP
//! code reads — renumbers each block's indirect references locally
//! (`ind_map`/`loc_map`) and colours the elements inside each block.
//! Names follow OP2's `op_plan` fields, which generated code reads.
//!
//! Rules (as in OP2's developer guide and run-time):
//! * `exec_length` = set size, plus the exec halo if an enabled indirect
//!   argument is written.
//! * block size = `part_size`, or from staged bytes per element
//!   (`max((24 KiB / (64 × bytes)) × 64, 256)`, 256 when nothing is staged);
//!   COLOR2 uses one block of the whole exec length.
//! * blocks are cut at `core_size`, at the set size for loops with an indirect
//!   global reduction, and at `exec_length`.
//! * colouring is greedy in element/block order with 32-bit masks per target
//!   element, repeated with a base of 32, 64, ... when colours run out; blocks
//!   past `core_size` may not take a core colour (so core colours can run
//!   while halos are in flight).

use crate::arg::Access;
use crate::par;

/// OP2's staging modes (`OP_STAGE_*`, `OP_COLOR2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Staging {
    None = 0,
    Inc = 1,
    All = 2,
    Permute = 3,
    Color2 = 4,
}

impl Staging {
    pub fn from_c(v: i32) -> Option<Staging> {
        Some(match v {
            0 => Staging::None,
            1 => Staging::Inc,
            2 => Staging::All,
            3 => Staging::Permute,
            4 => Staging::Color2,
            _ => return None,
        })
    }
}

/// One argument as the planner sees it.
#[derive(Debug, Clone)]
pub struct PlanArg<'a> {
    /// Enabled (optional arguments may be off).
    pub opt: bool,
    /// Indirect group (OP2's `inds[m]`): args through maps into the same dat
    /// share a group; -1 for direct and global arguments.
    pub ind: i32,
    /// Map entries, row-major (`from.size (+exec) × map_dim`); empty if direct.
    pub map: &'a [i32],
    pub map_dim: usize,
    /// Map column read by this argument.
    pub idx: usize,
    pub access: Access,
    /// A global (`OP_ARG_GBL`) argument.
    pub gbl: bool,
    /// Bytes per element of the dat (0 for globals).
    pub dat_bytes: usize,
    pub dat_dim: usize,
    /// Elements of the map's to-set (owned + halos).
    pub to_size: usize,
}

impl PlanArg<'_> {
    /// Does this argument make two elements conflict when they share a target?
    fn colours(&self) -> bool {
        self.ind >= 0 && self.opt && matches!(self.access, Access::Inc | Access::Rw)
    }
    #[inline]
    fn target(&self, e: usize) -> usize {
        self.map[e * self.map_dim + self.idx] as usize
    }
}

/// The plan checker's memory of which owner (block, or element) last
/// modified each target element, under which stamp (a colour, or a block's
/// thread colour): two owners under one stamp are a race.
struct LastWriter {
    /// Per target: stamp + 1 (0: not modified yet) and owner.
    slots: Vec<(u64, usize)>,
}

impl LastWriter {
    fn new(conflicting: &[&PlanArg<'_>]) -> LastWriter {
        let size = conflicting.iter().map(|a| a.to_size).max().unwrap_or(0);
        LastWriter {
            slots: vec![(0, 0); size],
        }
    }

    /// `owner` modifies target `t` under `stamp`; returns the other owner
    /// that did under the same stamp, if any. `g` and `el` name the group
    /// and element in the error for a target out of range.
    fn touch(
        &mut self,
        t: usize,
        stamp: u64,
        owner: usize,
        g: usize,
        el: usize,
    ) -> Result<Option<usize>, String> {
        let size = self.slots.len();
        let slot = self.slots.get_mut(t).ok_or_else(|| {
            format!("element {el} modifies element {t} of indirect group {g}, which has {size}")
        })?;
        let other = (slot.0 == stamp + 1 && slot.1 != owner).then_some(slot.1);
        *slot = (stamp + 1, owner);
        Ok(other)
    }
}

/// Everything a plan is built from.
#[derive(Debug, Clone)]
pub struct PlanInput<'a> {
    pub set_size: usize,
    pub core_size: usize,
    pub exec_size: usize,
    /// 0: choose from the staged bytes per element.
    pub part_size: usize,
    pub staging: Staging,
    pub args: Vec<PlanArg<'a>>,
    /// Number of indirect groups.
    pub ninds: usize,
    pub cache_line_size: usize,
    /// Build the per-block renumbering and element colouring (what generated
    /// code reads); `false` builds blocks and block colours only.
    pub full: bool,
}

/// An execution plan. Arrays are OP2's, as owned vectors.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub exec_length: usize,
    pub bsize: usize,
    pub ninds: usize,
    pub ninds_staged: usize,
    /// Per argument, its staged group or -1.
    pub inds_staged: Vec<i32>,
    pub nblocks: usize,
    /// First element and size of each block.
    pub offset: Vec<i32>,
    pub nelems: Vec<i32>,
    /// Colour of each block.
    pub blk_col: Vec<i32>,
    pub ncolors: usize,
    pub ncolors_core: usize,
    pub ncolors_owned: usize,
    /// Blocks per colour.
    pub ncolblk: Vec<i32>,
    /// Block ids grouped by colour (block order within a colour).
    pub blkmap: Vec<i32>,
    /// Full plans only: thread colours per block, element colours, colour
    /// permutation (PERMUTE/COLOR2) and per-block colour offsets.
    pub nthrcol: Vec<i32>,
    pub thrcol: Vec<i32>,
    pub col_reord: Vec<i32>,
    /// Flattened `col_offsets`; block b's list starts at `col_offsets_start[b]`.
    pub col_offsets: Vec<i32>,
    pub col_offsets_start: Vec<usize>,
    /// Concatenated local→global lists; staged group m starts at `ind_maps_start[m]`.
    pub ind_map: Vec<i32>,
    pub ind_maps_start: Vec<usize>,
    pub ind_offs: Vec<i32>,
    pub ind_sizes: Vec<i32>,
    pub nindirect: Vec<i32>,
    /// Block-local renumbered maps; argument m's starts at `loc_maps_start[m]`.
    pub loc_map: Vec<i16>,
    pub loc_maps_start: Vec<Option<usize>>,
    pub nshared_col: Vec<i32>,
    pub nshared: i32,
    pub transfer: f32,
    pub transfer2: f32,
    /// Average thread colours per block (diagnostics).
    pub avg_thread_colors: f32,
    /// Bytes per element of the staged dats (diagnostics: data reuse).
    pub maxbytes: usize,
    /// Staged bytes summed over blocks (diagnostics: data reuse).
    pub total_shared: f32,
    /// Bytes moved if dats were stored SoA (diagnostics).
    pub transfer3: f32,
}

/// `ceil(bytes / 64) * 64`.
fn round_up_64(b: usize) -> usize {
    b.div_ceil(64) * 64
}

/// A mask with bits `[lo, hi)` set, clipped to 32 bits.
fn bits(lo: i64, hi: i64) -> u32 {
    let lo = lo.clamp(0, 32);
    let hi = hi.clamp(0, 32);
    if hi <= lo {
        return 0;
    }
    let upto = |n: i64| if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    upto(hi) & !upto(lo)
}

/// Block boundaries `[start, end)` (OP2's cutting rule).
pub fn block_bounds(
    set_size: usize,
    core_size: usize,
    exec_length: usize,
    bsize: usize,
    indirect_reduce: bool,
) -> Vec<(usize, usize)> {
    let bsize = bsize.max(1);
    let mut out = Vec::with_capacity(exec_length / bsize + 3);
    let mut next = 0usize;
    while next < exec_length {
        let prev = next;
        next = if prev + bsize >= core_size && prev < core_size {
            core_size
        } else if prev + bsize >= set_size && prev < set_size && indirect_reduce {
            set_size
        } else if prev + bsize >= exec_length && prev < exec_length {
            exec_length
        } else {
            prev + bsize
        };
        out.push((prev, next));
    }
    out
}

/// The block size OP2 would choose.
pub fn block_size(input: &PlanInput<'_>, staged: &[bool]) -> usize {
    let maxbytes: usize = input
        .args
        .iter()
        .zip(staged)
        .filter(|(a, &s)| a.opt && s)
        .map(|(a, _)| a.dat_bytes)
        .sum();
    let b = if input.part_size > 0 {
        input.part_size
    } else if maxbytes > 0 {
        ((24 * 1024 / (64 * maxbytes)) * 64).max(256)
    } else {
        256
    };
    b.max(1)
}

/// The shape of a plan before any colouring: what is executed, which
/// arguments are staged, and where the blocks are cut.
struct Layout {
    exec_length: usize,
    /// Per argument: staged (its dat goes through shared memory).
    staged: Vec<bool>,
    /// Bytes per element of the enabled staged arguments.
    maxbytes: usize,
    bsize: usize,
    /// An indirect loop with a global reduction: blocks are cut at the set size.
    indirect_reduce: bool,
    bounds: Vec<(usize, usize)>,
}

impl Layout {
    fn new(input: &PlanInput<'_>) -> Layout {
        let args = &input.args;
        let exec_writes = args
            .iter()
            .any(|a| a.opt && a.ind >= 0 && a.access != Access::Read);
        let exec_length = input.set_size + if exec_writes { input.exec_size } else { 0 };
        let staged: Vec<bool> = args
            .iter()
            .map(|a| {
                a.ind >= 0
                    && match input.staging {
                        Staging::Inc => a.access == Access::Inc,
                        Staging::All | Staging::Permute => true,
                        _ => false,
                    }
            })
            .collect();
        let maxbytes: usize = args
            .iter()
            .zip(&staged)
            .filter(|(a, &st)| a.opt && st)
            .map(|(a, _)| a.dat_bytes)
            .sum();
        let mut bsize = block_size(input, &staged);
        if input.staging == Staging::Color2 {
            bsize = exec_length.max(1);
        }
        let indirect_reduce = input.ninds > 0
            && args
                .iter()
                .any(|a| a.gbl && !matches!(a.access, Access::Read | Access::Work));
        let bounds = Layout::cut_blocks(input, exec_length, bsize, indirect_reduce);
        Layout {
            exec_length,
            staged,
            maxbytes,
            bsize,
            indirect_reduce,
            bounds,
        }
    }

    /// Block boundaries: OP2's cutting rule, or one block for COLOR2.
    fn cut_blocks(
        input: &PlanInput<'_>,
        exec_length: usize,
        bsize: usize,
        indirect_reduce: bool,
    ) -> Vec<(usize, usize)> {
        if input.staging == Staging::Color2 {
            if exec_length > 0 {
                vec![(0, exec_length)]
            } else {
                Vec::new()
            }
        } else {
            block_bounds(
                input.set_size,
                input.core_size,
                exec_length,
                bsize,
                indirect_reduce,
            )
        }
    }

    /// Staged groups, numbered in order of first use: per argument its staged
    /// group or -1, and the number of staged groups.
    fn number_staged_groups(&self, input: &PlanInput<'_>) -> (Vec<i32>, usize) {
        let mut inds_staged = vec![-1i32; input.args.len()];
        let mut group_to_staged = vec![-1i32; input.ninds];
        let mut ninds_staged = 0usize;
        let args = input.args.iter().zip(&self.staged);
        for ((a, &staged), slot) in args.zip(inds_staged.iter_mut()) {
            if staged {
                let g = a.ind as usize;
                if group_to_staged[g] < 0 {
                    group_to_staged[g] = ninds_staged as i32;
                    ninds_staged += 1;
                }
                *slot = group_to_staged[g];
            }
        }
        (inds_staged, ninds_staged)
    }
}

/// Per-block results of the full plan (computed independently per block).
struct BlockDetail {
    /// Per staged group: sorted distinct targets.
    lists: Vec<Vec<i32>>,
    /// Per argument with a staged group: local indices of its elements.
    locs: Vec<Vec<i16>>,
    /// Element colours.
    thrcol: Vec<i32>,
    nthrcol: i32,
    ncolors_owned: Option<usize>,
}

/// The element colouring of one block.
struct ElementColours {
    thrcol: Vec<i32>,
    ncolors: i64,
    /// COLOR2 with an indirect reduction: colours of the owned elements.
    ncolors_owned: Option<usize>,
}

/// Position of target `t` in a block's sorted list of group `g`.
fn local_index(lists: &[Vec<i32>], g: usize, t: i32) -> usize {
    lists[g]
        .binary_search(&t)
        .expect("target is in its block list")
}

/// Everything the per-block renumbering and element colouring read.
struct BlockRenumbering<'p, 'a> {
    args: &'p [PlanArg<'a>],
    ninds: usize,
    /// The indirect group of each staged group.
    staged_groups: &'p [usize],
    /// COLOR2: an indirect argument is read, so boundary elements wait for
    /// the halo exchange.
    halo_exchange: bool,
    inds_staged: &'p [i32],
    set_size: usize,
    core_size: usize,
    staging: Staging,
    indirect_reduce: bool,
}

/// The indirect group of each staged group (the group of the first argument
/// carrying that staged number).
fn staged_groups(inds_staged: &[i32], args: &[PlanArg<'_>], ninds_staged: usize) -> Vec<usize> {
    let mut groups = vec![usize::MAX; ninds_staged];
    for (a, &st) in args.iter().zip(inds_staged) {
        if let Some(g) = usize::try_from(st).ok().and_then(|st| groups.get_mut(st)) {
            if *g == usize::MAX {
                *g = a.ind as usize;
            }
        }
    }
    groups
}

impl<'p, 'a> BlockRenumbering<'p, 'a> {
    fn new(
        input: &'p PlanInput<'a>,
        inds_staged: &'p [i32],
        staged_groups: &'p [usize],
        indirect_reduce: bool,
    ) -> BlockRenumbering<'p, 'a> {
        let args = &input.args;
        let halo_exchange = args
            .iter()
            .any(|a| a.opt && a.ind >= 0 && !matches!(a.access, Access::Write | Access::Inc));
        BlockRenumbering {
            args,
            ninds: input.ninds,
            staged_groups,
            halo_exchange,
            inds_staged,
            set_size: input.set_size,
            core_size: input.core_size,
            staging: input.staging,
            indirect_reduce,
        }
    }

    /// Renumbering and element colouring of block `[s, e)`.
    fn block(&self, s: usize, e: usize) -> BlockDetail {
        let mut group_lists = self.target_lists(s, e);
        let locs = self.local_maps(&group_lists, s, e);
        let colours = self.colour_elements(&group_lists, s, e);
        // In staged order (which need not be group order).
        let lists = self
            .staged_groups
            .iter()
            .map(|&g| std::mem::take(&mut group_lists[g]))
            .collect();
        BlockDetail {
            lists,
            locs,
            thrcol: colours.thrcol,
            nthrcol: colours.ncolors as i32,
            ncolors_owned: colours.ncolors_owned,
        }
    }

    /// Sorted distinct targets of the enabled arguments of every group in
    /// the block (staged or not; empty for a group with none enabled).
    fn target_lists(&self, s: usize, e: usize) -> Vec<Vec<i32>> {
        let mut group_lists: Vec<Vec<i32>> = vec![Vec::new(); self.ninds];
        for (g, list) in group_lists.iter_mut().enumerate() {
            for a in self.args.iter().filter(|a| a.ind == g as i32 && a.opt) {
                list.extend((s..e).map(|el| a.target(el) as i32));
            }
            list.sort_unstable();
            list.dedup();
        }
        group_lists
    }

    /// Per argument with a staged group: its targets as positions in the
    /// block's list (zeros for a disabled argument).
    fn local_maps(&self, group_lists: &[Vec<i32>], s: usize, e: usize) -> Vec<Vec<i16>> {
        let mut locs = Vec::new();
        for (m, a) in self.args.iter().enumerate() {
            if self.inds_staged[m] >= 0 && a.opt {
                locs.push(
                    (s..e)
                        .map(|el| {
                            local_index(group_lists, a.ind as usize, a.target(el) as i32) as i16
                        })
                        .collect(),
                );
            } else if self.inds_staged[m] >= 0 {
                locs.push(vec![0i16; e - s]);
            }
        }
        locs
    }

    /// COLOR2 with an indirect reduction colours the owned elements first:
    /// the first pass skips the exec halo.
    fn skipped_in_owned_pass(&self, el: usize, owned_pass: bool) -> bool {
        self.staging == Staging::Color2 && self.indirect_reduce && el >= self.set_size && owned_pass
    }

    /// COLOR2 reserves colour 0 for the core when boundary elements wait for
    /// the halo exchange.
    fn reserved_mask(&self, el: usize, base: i64) -> u32 {
        let boundary = el >= self.core_size && self.core_size > 0 && el < self.set_size;
        if self.staging == Staging::Color2 && self.halo_exchange && boundary && base == 0 {
            1
        } else {
            0
        }
    }

    /// Greedy element colouring with 32-bit masks on block-local targets,
    /// repeated with a base of 32, 64, ... while colours run out.
    fn colour_elements(&self, group_lists: &[Vec<i32>], s: usize, e: usize) -> ElementColours {
        let local = |a: &PlanArg<'_>, el: usize| {
            local_index(group_lists, a.ind as usize, a.target(el) as i32)
        };
        let mut work: Vec<Vec<u32>> = group_lists.iter().map(|l| vec![0u32; l.len()]).collect();
        let mut thrcol = vec![-1i32; e - s];
        let mut base = 0i64;
        let mut ncolors = 0i64;
        let mut repeat = true;
        let mut owned_pass = true;
        let mut ncolors_owned = None;
        while repeat {
            repeat = false;
            for w in work.iter_mut() {
                w.iter_mut().for_each(|x| *x = 0);
            }
            for el in s..e {
                if thrcol[el - s] != -1 || self.skipped_in_owned_pass(el, owned_pass) {
                    continue;
                }
                let mut mask = self.reserved_mask(el, base);
                for a in self.args.iter().filter(|a| a.colours()) {
                    mask |= work[a.ind as usize][local(a, el)];
                }
                let free = (!mask).trailing_zeros();
                if free == 32 {
                    repeat = true;
                } else {
                    thrcol[el - s] = (base + free as i64) as i32;
                    ncolors = ncolors.max(base + free as i64 + 1);
                    for a in self.args.iter().filter(|a| a.colours()) {
                        work[a.ind as usize][local(a, el)] |= 1 << free;
                    }
                }
            }
            if self.staging == Staging::Color2 && self.indirect_reduce && !repeat && owned_pass {
                owned_pass = false;
                repeat = true;
                base = ncolors;
                ncolors_owned = Some(ncolors as usize);
            } else {
                base += 32;
            }
        }
        ElementColours {
            thrcol,
            ncolors,
            ncolors_owned,
        }
    }
}

/// The state of the greedy block colouring.
struct BlockColouring<'p, 'a> {
    input: &'p PlanInput<'a>,
    indirect_reduce: bool,
    colouring: Vec<&'p PlanArg<'a>>,
    /// Per group, a colour mask per target element (empty if no argument
    /// of the group is enabled).
    work: Vec<Vec<u32>>,
    blk_col: Vec<i32>,
    /// Base colour of the current pass.
    ncolor: i64,
    ncolors: i64,
    ncolors_core: i64,
    ncolors_owned: i64,
}

impl<'p, 'a> BlockColouring<'p, 'a> {
    fn new(
        input: &'p PlanInput<'a>,
        nblocks: usize,
        indirect_reduce: bool,
        ncolors_owned: usize,
    ) -> BlockColouring<'p, 'a> {
        let args = &input.args;
        let work: Vec<Vec<u32>> = (0..input.ninds)
            .map(|g| {
                let to_size = args
                    .iter()
                    .filter(|a| a.ind == g as i32 && a.opt)
                    .map(|a| a.to_size)
                    .max()
                    .unwrap_or(0);
                vec![0u32; to_size]
            })
            .collect();
        BlockColouring {
            input,
            indirect_reduce,
            colouring: args.iter().filter(|a| a.colours()).collect(),
            work,
            blk_col: vec![-1i32; nblocks],
            ncolor: 0,
            ncolors: 0,
            ncolors_core: 0,
            ncolors_owned: ncolors_owned as i64,
        }
    }

    /// Colours a block past the core may not take: the core colours (so they
    /// can run while halos are in flight) and, with an indirect reduction,
    /// the owned colours for blocks of the exec halo.
    fn reserved_mask(&mut self, s: usize, e: usize) -> u32 {
        let input = self.input;
        let mut mask = 0u32;
        if e > input.core_size {
            if s <= input.core_size {
                self.ncolors_core = self.ncolors;
            }
            mask |= bits(0, self.ncolors_core - self.ncolor);
            if s == input.set_size && self.indirect_reduce && input.staging != Staging::Color2 {
                self.ncolors_owned = self.ncolors;
            }
            if self.indirect_reduce {
                mask |= bits(self.ncolors_core, self.ncolors_owned - self.ncolor);
            }
        }
        mask
    }

    /// Colours already taken by a block touching the same targets.
    fn conflict_mask(&self, s: usize, e: usize) -> u32 {
        let mut mask = 0u32;
        for a in &self.colouring {
            let w = &self.work[a.ind as usize];
            for el in s..e {
                mask |= w[a.target(el)];
            }
        }
        mask
    }

    /// Give block `b` colour `ncolor + free` and mark its targets.
    fn assign(&mut self, b: usize, s: usize, e: usize, free: u32) {
        self.blk_col[b] = (self.ncolor + free as i64) as i32;
        self.ncolors = self.ncolors.max(self.ncolor + free as i64 + 1);
        for a in &self.colouring {
            let w = &mut self.work[a.ind as usize];
            for el in s..e {
                w[a.target(el)] |= 1 << free;
            }
        }
    }

    /// Greedy passes in block order, with a base of 0, 32, 64, ... until
    /// every block has a colour.
    fn run(&mut self, bounds: &[(usize, usize)]) {
        let mut repeat = true;
        while repeat {
            repeat = false;
            for w in self.work.iter_mut() {
                w.iter_mut().for_each(|x| *x = 0);
            }
            for (b, &(s, e)) in bounds.iter().enumerate() {
                if self.blk_col[b] != -1 {
                    continue;
                }
                let mask = self.reserved_mask(s, e) | self.conflict_mask(s, e);
                let free = (!mask).trailing_zeros();
                if free == 32 {
                    repeat = true;
                } else {
                    self.assign(b, s, e, free);
                }
            }
            self.ncolor += 32;
        }
        if self.indirect_reduce && self.ncolors_owned == 0 {
            self.ncolors_owned = self.ncolors;
        }
    }
}

/// Blocks per colour and block ids grouped by colour (block order within a
/// colour).
fn group_blocks_by_colour(blk_col: &[i32], ncolors: usize) -> (Vec<i32>, Vec<i32>) {
    let mut ncolblk = vec![0i32; ncolors];
    for &c in blk_col {
        ncolblk[c as usize] += 1;
    }
    let mut start = vec![0usize; ncolors];
    for c in 1..ncolors {
        start[c] = start[c - 1] + ncolblk[c - 1] as usize;
    }
    let mut blkmap = vec![0i32; blk_col.len()];
    for (b, &c) in blk_col.iter().enumerate() {
        blkmap[start[c as usize]] = b as i32;
        start[c as usize] += 1;
    }
    (ncolblk, blkmap)
}

/// 1 for an argument only read or only written, 2 for one read and written.
fn access_factor(a: &PlanArg<'_>) -> f64 {
    if matches!(a.access, Access::Read | Access::Write) {
        1.0
    } else {
        2.0
    }
}

/// Add to `t` the bytes moved in whole lines of `line` bytes when reading
/// the elements `list` (ascending) of `bytes` bytes each.
fn add_lines(t: &mut f64, list: &[i32], bytes: usize, line: usize, fac: f64) {
    let mut l_old: i64 = -1;
    for &i in list {
        let first = (i as usize * bytes / line) as i64;
        if first > l_old {
            *t += fac * line as f64;
        }
        l_old = first;
        let last = (((i as usize + 1) * bytes - 1) / line) as i64;
        *t += fac * ((last - l_old) as f64) * line as f64;
        l_old = last;
    }
}

impl Plan {
    /// The plan's colouring as CSV, one line per executed element in
    /// element order (`element,block,block_colour,thread_colour`; thread
    /// colour -1 when the plan has no element colours): what
    /// `OP2_RS_PLAN_CSV` writes so a mesh can be coloured by it.
    pub fn colouring_csv(&self) -> String {
        use std::fmt::Write;
        let mut out = String::from("element,block,block_colour,thread_colour\n");
        for (el, [b, bc, t]) in self.colouring().iter().enumerate() {
            let _ = writeln!(out, "{el},{b},{bc},{t}");
        }
        out
    }

    /// Per element (`0..exec_length`): its block, the block's colour and
    /// its thread colour (-1 where the plan has none).
    pub fn colouring(&self) -> Vec<[i32; 3]> {
        let n = self.exec_length;
        let mut out = vec![[-1i32; 3]; n];
        for b in 0..self.nblocks {
            let s = self.offset[b] as usize;
            for pos in s..s + self.nelems[b] as usize {
                let el = match self.col_reord.get(pos) {
                    Some(&r) => s + r as usize,
                    None => pos,
                };
                if el < n {
                    let t = self.thrcol.get(pos).copied().unwrap_or(-1);
                    out[el] = [b as i32, self.blk_col[b], t];
                }
            }
        }
        out
    }

    /// Build a plan. `input.args[m].map` must hold valid rows for every
    /// element `< exec_length` with entries `< to_size` (checked by the caller).
    pub fn build(input: &PlanInput<'_>) -> Plan {
        let layout = Layout::new(input);
        let (inds_staged, ninds_staged) = layout.number_staged_groups(input);
        let bounds = &layout.bounds;
        let mut plan = Plan {
            exec_length: layout.exec_length,
            bsize: layout.bsize,
            ninds: input.ninds,
            ninds_staged,
            inds_staged,
            nblocks: bounds.len(),
            offset: bounds.iter().map(|b| b.0 as i32).collect(),
            nelems: bounds.iter().map(|b| (b.1 - b.0) as i32).collect(),
            maxbytes: layout.maxbytes,
            ..Plan::default()
        };

        // PERMUTE and COLOR2 are defined by element colours: always full.
        if input.full || matches!(input.staging, Staging::Permute | Staging::Color2) {
            plan.build_detail(input, bounds, layout.indirect_reduce);
        }
        plan.colour_blocks(input, bounds, layout.indirect_reduce);
        if input.staging == Staging::Color2 {
            plan.use_element_colours();
        }
        plan.shared_memory(input);
        plan.transfer_estimates(input);
        plan
    }

    /// COLOR2: one block (of colour 0); OP2 reports the element colours as
    /// the plan's colours, and COLOR2 code only reads the element ordering.
    fn use_element_colours(&mut self) {
        self.ncolors = self.nthrcol.first().copied().unwrap_or(0) as usize;
        self.blk_col.iter_mut().for_each(|c| *c = 0);
        self.ncolblk = vec![0; self.ncolors.max(1)];
        self.ncolblk[0] = self.nblocks as i32;
    }

    /// First-level detail: renumbering and element colouring, per block (in
    /// parallel inside a rayon pool), then assembled in block order.
    fn build_detail(
        &mut self,
        input: &PlanInput<'_>,
        bounds: &[(usize, usize)],
        indirect_reduce: bool,
    ) {
        let groups = staged_groups(&self.inds_staged, &input.args, self.ninds_staged);
        let details: Vec<BlockDetail> = {
            let renumbering =
                BlockRenumbering::new(input, &self.inds_staged, &groups, indirect_reduce);
            par::map_slice(bounds, |&(s, e)| renumbering.block(s, e))
        };
        self.allocate_detail(input, &details);
        self.copy_block_details(&groups, bounds, &details);
        if matches!(input.staging, Staging::Permute | Staging::Color2) {
            self.permute_by_colour(bounds);
        }
    }

    /// Size the renumbering and element colour arrays. Each staged group's
    /// list holds the distinct targets of all its enabled arguments in every
    /// block (staged or not, as OP2 builds it), so it is sized from the lists
    /// themselves (`details[b].lists` are in staged order).
    fn allocate_detail(&mut self, input: &PlanInput<'_>, details: &[BlockDetail]) {
        let nst = self.ninds_staged;
        let el = self.exec_length;
        let mut starts = vec![0usize; nst];
        let mut acc = 0usize;
        for (m, start) in starts.iter_mut().enumerate() {
            *start = acc;
            acc += details.iter().map(|d| d.lists[m].len()).sum::<usize>();
        }
        self.ind_map = vec![0; acc.max(1)];
        self.ind_maps_start = starts;
        self.ind_offs = vec![0; self.nblocks * nst];
        self.ind_sizes = vec![0; self.nblocks * nst];
        self.nindirect = vec![0; input.ninds];
        let nloc = self.inds_staged.iter().filter(|&&s| s >= 0).count();
        self.loc_map = vec![0; nloc * el];
        let mut k = 0;
        self.loc_maps_start = self
            .inds_staged
            .iter()
            .map(|&s| {
                if s >= 0 {
                    k += 1;
                    Some((k - 1) * el)
                } else {
                    None
                }
            })
            .collect();
        self.thrcol = vec![0; el];
        self.nthrcol = vec![0; self.nblocks];
    }

    /// Copy every block's lists, local maps and element colours into place.
    /// `staged_groups[m]` is the indirect group of staged group `m`.
    fn copy_block_details(
        &mut self,
        staged_groups: &[usize],
        bounds: &[(usize, usize)],
        details: &[BlockDetail],
    ) {
        let nst = self.ninds_staged;
        let mut total_colors = 0f32;
        for (b, d) in details.iter().enumerate() {
            let (s, e) = bounds[b];
            for (m3, &g) in staged_groups.iter().enumerate() {
                let list = &d.lists[m3];
                let base = self.ind_maps_start[m3] + self.nindirect[g] as usize;
                self.ind_map[base..base + list.len()].copy_from_slice(list);
                let off = if b == 0 {
                    0
                } else {
                    self.ind_offs[m3 + (b - 1) * nst] + self.ind_sizes[m3 + (b - 1) * nst]
                };
                self.ind_offs[m3 + b * nst] = off;
                self.ind_sizes[m3 + b * nst] = list.len() as i32;
                self.nindirect[g] += list.len() as i32;
            }
            let starts = self.loc_maps_start.iter().flatten();
            for (&st, locs) in starts.zip(&d.locs) {
                self.loc_map[st + s..st + e].copy_from_slice(locs);
            }
            self.thrcol[s..e].copy_from_slice(&d.thrcol);
            self.nthrcol[b] = d.nthrcol;
            total_colors += d.nthrcol as f32;
            if let Some(o) = d.ncolors_owned {
                self.ncolors_owned = o;
            }
        }
        self.avg_thread_colors = if self.nblocks > 0 {
            total_colors / self.nblocks as f32
        } else {
            0.0
        };
    }

    /// PERMUTE/COLOR2: order each block's elements by colour (`col_reord`,
    /// `col_offsets`), `thrcol` then in that order.
    fn permute_by_colour(&mut self, bounds: &[(usize, usize)]) {
        self.col_reord = vec![0; self.exec_length + 16];
        self.col_offsets_start = Vec::with_capacity(self.nblocks);
        for &(s, e) in bounds.iter().take(self.nblocks) {
            let mut kv: Vec<(i32, i32)> =
                (s..e).map(|x| (self.thrcol[x], (x - s) as i32)).collect();
            kv.sort_by_key(|&(k, v)| (k, v));
            self.col_offsets_start.push(self.col_offsets.len());
            self.col_offsets.push(0);
            for (i, &(key, val)) in kv.iter().enumerate() {
                self.thrcol[s + i] = key;
                self.col_reord[s + i] = val;
                if i > 0 && key > kv[i - 1].0 {
                    self.col_offsets.push(i as i32);
                }
            }
            self.col_offsets.push((e - s) as i32);
        }
    }

    /// Second level: greedy block colouring, then blocks grouped by colour.
    fn colour_blocks(
        &mut self,
        input: &PlanInput<'_>,
        bounds: &[(usize, usize)],
        indirect_reduce: bool,
    ) {
        let mut bc = BlockColouring::new(input, bounds.len(), indirect_reduce, self.ncolors_owned);
        bc.run(bounds);
        let ncolors = bc.ncolors as usize;
        let (ncolblk, blkmap) = group_blocks_by_colour(&bc.blk_col, ncolors);
        self.blk_col = bc.blk_col;
        self.ncolors = ncolors;
        self.ncolors_core = bc.ncolors_core as usize;
        self.ncolors_owned = bc.ncolors_owned as usize;
        self.ncolblk = ncolblk;
        self.blkmap = blkmap;
    }

    /// Shared-memory bytes per block (staged dats, 64-byte aligned), their
    /// maximum per colour and overall. A staged group counts if one of its
    /// staged arguments is enabled (OP2 asks only the first one).
    fn shared_memory(&mut self, input: &PlanInput<'_>) {
        let nst = self.ninds_staged;
        // Bytes per element of each staged group with an enabled staged argument.
        let staged_bytes: Vec<Option<usize>> = (0..nst)
            .map(|m| {
                input
                    .args
                    .iter()
                    .zip(&self.inds_staged)
                    .find(|(a, &st)| st == m as i32 && a.opt)
                    .map(|(a, _)| a.dat_bytes)
            })
            .collect();
        let block_bytes = |b: usize| -> usize {
            if self.ind_sizes.is_empty() {
                return 0;
            }
            (0..nst)
                .filter_map(|m| {
                    let bytes = staged_bytes[m]?;
                    Some(round_up_64(self.ind_sizes[m + b * nst] as usize * bytes))
                })
                .sum()
        };
        let mut nshared_col = vec![0; self.ncolors];
        let mut nshared = 0;
        let mut total_shared = 0.0;
        for b in 0..self.nblocks {
            let nb = block_bytes(b) as i32;
            total_shared += nb as f32;
            let c = self.blk_col[b] as usize;
            if c < nshared_col.len() {
                nshared_col[c] = nshared_col[c].max(nb);
            }
            nshared = nshared.max(nb);
        }
        self.nshared_col = nshared_col;
        self.nshared = nshared;
        self.total_shared = total_shared;
    }

    /// Bytes-moved estimates (`transfer`: bytes, `transfer2`: whole cache
    /// lines, `transfer3`: cache lines with SoA dats), not for COLOR2 and
    /// STAGE_INC.
    fn transfer_estimates(&mut self, input: &PlanInput<'_>) {
        let mut t = [0f64; 3];
        if !matches!(input.staging, Staging::Color2 | Staging::Inc) {
            let cl = input.cache_line_size.max(1);
            for b in 0..self.nblocks {
                let ne = self.nelems[b] as f64;
                for a in input.args.iter().filter(|a| a.opt) {
                    let x = if a.ind < 0 {
                        access_factor(a) * ne * a.dat_bytes as f64
                    } else {
                        ne * 2.0
                    };
                    t.iter_mut().for_each(|t| *t += x);
                }
                for g in 0..input.ninds {
                    self.group_transfer(input, g, b, cl, &mut t);
                }
            }
        }
        self.transfer = t[0] as f32;
        self.transfer2 = t[1] as f32;
        self.transfer3 = t[2] as f32;
    }

    /// Add the bytes indirect group `g` moves in block `b` to the estimates.
    fn group_transfer(
        &self,
        input: &PlanInput<'_>,
        g: usize,
        b: usize,
        cl: usize,
        t: &mut [f64; 3],
    ) {
        let nst = self.ninds_staged;
        let ne = self.nelems[b] as f64;
        // The group's first enabled argument (OP2 asks only the first one).
        let Some(pos) = input.args.iter().position(|a| a.ind == g as i32 && a.opt) else {
            return;
        };
        let a = &input.args[pos];
        let fac = access_factor(a);
        // Not STAGE_INC: every argument of a group has the group's staged number.
        let st = self.inds_staged[pos];
        if self.ind_sizes.is_empty() || st < 0 {
            // Blocks-only plan: count every reference (an upper bound).
            let x = fac * ne * a.dat_bytes as f64;
            t.iter_mut().for_each(|t| *t += x);
            return;
        }
        let st = st as usize;
        let size = self.ind_sizes[st + b * nst] as usize;
        t[0] += fac * (size * a.dat_bytes) as f64;
        let e0 = self.ind_offs[st + b * nst] as usize;
        let list = &self.ind_map[self.ind_maps_start[st] + e0..self.ind_maps_start[st] + e0 + size];
        add_lines(&mut t[1], list, a.dat_bytes, cl, fac);
        // The same, with each component in its own array (SoA).
        add_lines(&mut t[2], list, a.dat_bytes, a.dat_dim.max(1) * cl, fac);
        let mf = if a.access == Access::Rw { 2.0 } else { 1.0 };
        let x = mf * size as f64 * 4.0;
        t.iter_mut().for_each(|t| *t += x);
    }

    /// Blocks of colour `c`, in order.
    pub fn blocks_of_colour(&self, c: usize) -> &[i32] {
        let start: usize = self.ncolblk[..c].iter().map(|&n| n as usize).sum();
        &self.blkmap[start..start + self.ncolblk[c] as usize]
    }

    /// Element range of block `b`.
    pub fn block_range(&self, b: usize) -> (usize, usize) {
        let s = self.offset[b] as usize;
        (s, s + self.nelems[b] as usize)
    }

    /// OP2's `op_plan_check`: no two blocks of one colour, and no two elements
    /// of one thread colour in a block, touch the same element through an
    /// indirect INC/RW argument; blocks tile `[0, exec_length)`; blkmap is a
    /// permutation grouped by colour. Beyond OP2's: `inds_staged` numbers the
    /// staged groups as OP2 does and, in full plans, each staged group's
    /// block lists (`ind_map`, `ind_offs`, `ind_sizes`, `nindirect`) hold
    /// exactly the distinct targets of the group's enabled arguments, and
    /// local maps round-trip to the global map.
    pub fn check(&self, input: &PlanInput<'_>) -> Result<(), String> {
        self.check_tiling()?;
        self.check_blkmap()?;
        for g in 0..input.ninds {
            let conflicting: Vec<&PlanArg<'_>> = input
                .args
                .iter()
                .filter(|a| a.ind == g as i32 && a.colours())
                .collect();
            if conflicting.is_empty() {
                continue;
            }
            self.check_block_colours(g, &conflicting)?;
            if !self.thrcol.is_empty() {
                self.check_thread_colours(g, &conflicting)?;
            }
        }
        self.check_staged_numbering(input)?;
        if input.full || matches!(input.staging, Staging::Permute | Staging::Color2) {
            self.check_renumbering(input)?;
        }
        Ok(())
    }

    /// `inds_staged` as OP2 numbers it: an indirect argument (enabled or
    /// not) is staged under STAGE_INC if it increments, under
    /// STAGE_ALL/PERMUTE always; staged groups are numbered in order of
    /// their first staged argument, and every staged argument carries its
    /// group's number.
    fn check_staged_numbering(&self, input: &PlanInput<'_>) -> Result<(), String> {
        if self.inds_staged.len() != input.args.len() {
            return Err(format!(
                "inds_staged has {} entries for {} arguments",
                self.inds_staged.len(),
                input.args.len()
            ));
        }
        let mut numbers = vec![-1i32; input.ninds];
        let mut next = 0i32;
        for (m, a) in input.args.iter().enumerate() {
            let staged = a.ind >= 0
                && match input.staging {
                    Staging::Inc => a.access == Access::Inc,
                    Staging::All | Staging::Permute => true,
                    Staging::None | Staging::Color2 => false,
                };
            let want = if staged {
                let Some(n) = numbers.get_mut(a.ind as usize) else {
                    return Err(format!("arg {m} is in group {} of {}", a.ind, input.ninds));
                };
                if *n < 0 {
                    *n = next;
                    next += 1;
                }
                *n
            } else {
                -1
            };
            if self.inds_staged[m] != want {
                return Err(format!(
                    "inds_staged[{m}] is {}, OP2 numbers it {want}",
                    self.inds_staged[m]
                ));
            }
        }
        if self.ninds_staged != next as usize {
            return Err(format!(
                "ninds_staged is {}, {next} groups are staged",
                self.ninds_staged
            ));
        }
        Ok(())
    }

    /// The per-block renumbering of a full plan: array sizes, each staged
    /// group's lists, `nindirect`, and the local maps.
    fn check_renumbering(&self, input: &PlanInput<'_>) -> Result<(), String> {
        let nst = self.ninds_staged;
        let sizes = [
            ("ind_offs", self.ind_offs.len(), self.nblocks * nst),
            ("ind_sizes", self.ind_sizes.len(), self.nblocks * nst),
            ("ind_maps_start", self.ind_maps_start.len(), nst),
            ("nindirect", self.nindirect.len(), input.ninds),
            (
                "loc_maps_start",
                self.loc_maps_start.len(),
                input.args.len(),
            ),
        ];
        for (name, got, want) in sizes {
            if got != want {
                return Err(format!("{name} has {got} entries, should have {want}"));
            }
        }
        let groups = staged_groups(&self.inds_staged, &input.args, nst);
        // Staged groups' lists are concatenated in staged order.
        let mut start = 0usize;
        for (m, &g) in groups.iter().enumerate() {
            if self.ind_maps_start[m] != start {
                return Err(format!(
                    "ind_maps_start[{m}] is {}, the lists before it end at {start}",
                    self.ind_maps_start[m]
                ));
            }
            start += self.check_staged_lists(input, m, g)?;
        }
        for g in (0..input.ninds).filter(|g| !groups.contains(g)) {
            if self.nindirect[g] != 0 {
                return Err(format!("nindirect[{g}] of an unstaged group is not 0"));
            }
        }
        self.check_local_maps(input)
    }

    /// Block by block, staged group `m` (indirect group `g`) lists the sorted
    /// distinct targets of the group's enabled arguments (staged or not), at
    /// `ind_offs` (the sizes of the blocks before) with `ind_sizes` entries;
    /// `nindirect[g]` is their total. Returns the total.
    fn check_staged_lists(
        &self,
        input: &PlanInput<'_>,
        m: usize,
        g: usize,
    ) -> Result<usize, String> {
        let nst = self.ninds_staged;
        let members: Vec<&PlanArg<'_>> = input
            .args
            .iter()
            .filter(|a| a.ind == g as i32 && a.opt)
            .collect();
        let mut total = 0usize;
        let mut want: Vec<i32> = Vec::new();
        for b in 0..self.nblocks {
            let (s, e) = self.block_range(b);
            let (off, size) = (self.ind_offs[m + b * nst], self.ind_sizes[m + b * nst]);
            if off as i64 != total as i64 || size < 0 {
                return Err(format!(
                    "staged group {m}, block {b}: ind_offs {off}, ind_sizes {size}; the blocks before list {total}"
                ));
            }
            want.clear();
            want.extend(
                members
                    .iter()
                    .flat_map(|a| (s..e).map(|el| a.target(el) as i32)),
            );
            want.sort_unstable();
            want.dedup();
            let first = self.ind_maps_start[m] + total;
            total += size as usize;
            if self.ind_map.get(first..first + size as usize) != Some(&want[..]) {
                return Err(format!(
                    "ind_map of staged group {m} in block {b} is not the sorted distinct targets of group {g}"
                ));
            }
        }
        if self.nindirect[g] as i64 != total as i64 {
            return Err(format!(
                "nindirect[{g}] is {}, its lists hold {total}",
                self.nindirect[g]
            ));
        }
        Ok(total)
    }

    /// Blocks tile the exec range in order.
    fn check_tiling(&self) -> Result<(), String> {
        let mut next = 0usize;
        for b in 0..self.nblocks {
            let (s, e) = self.block_range(b);
            if s != next || e < s {
                return Err(format!(
                    "block {b} covers [{s}, {e}) but should start at {next}"
                ));
            }
            next = e;
        }
        if next != self.exec_length {
            return Err(format!(
                "blocks end at {next}, exec length is {}",
                self.exec_length
            ));
        }
        Ok(())
    }

    /// blkmap: a permutation grouped by colour.
    fn check_blkmap(&self) -> Result<(), String> {
        let mut seen = vec![false; self.nblocks];
        let mut pos = 0usize;
        for c in 0..self.ncolors {
            for _ in 0..self.ncolblk[c] {
                let b = self.blkmap[pos] as usize;
                if b >= self.nblocks || seen[b] {
                    return Err(format!("blkmap[{pos}] = {b} repeats or is out of range"));
                }
                if self.blk_col[b] as usize != c {
                    return Err(format!(
                        "block {b} of colour {} listed under colour {c}",
                        self.blk_col[b]
                    ));
                }
                seen[b] = true;
                pos += 1;
            }
        }
        if pos != self.nblocks {
            return Err(format!("blkmap lists {pos} of {} blocks", self.nblocks));
        }
        Ok(())
    }

    /// No two blocks of one colour modify the same element of group `g`.
    /// One pass, colour by colour (blkmap is checked first), so the check
    /// costs linear time and 16 bytes per target element (generated code
    /// runs it for every plan, as OP2 runs op_plan_check).
    fn check_block_colours(&self, g: usize, conflicting: &[&PlanArg<'_>]) -> Result<(), String> {
        let mut last = LastWriter::new(conflicting);
        for c in 0..self.ncolors {
            for &b in self.blocks_of_colour(c) {
                let (s, e) = self.block_range(b as usize);
                for a in conflicting {
                    for el in s..e {
                        let t = a.target(el);
                        if let Some(other) = last.touch(t, c as u64, b as usize, g, el)? {
                            return Err(format!(
                                "blocks {other} and {b} of colour {c} both modify element {t} of indirect group {g}"
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// No two elements of one thread colour in a block modify the same
    /// element of group `g` (full plans). One pass; the (block, thread
    /// colour) pairs are unique, so nothing is reset between blocks.
    fn check_thread_colours(&self, g: usize, conflicting: &[&PlanArg<'_>]) -> Result<(), String> {
        let permuted = !self.col_reord.is_empty();
        let ncol = self.thrcol.iter().map(|&c| c as u64 + 1).max().unwrap_or(1);
        let mut last = LastWriter::new(conflicting);
        for b in 0..self.nblocks {
            let (s, e) = self.block_range(b);
            for i in s..e {
                let el = if permuted {
                    s + self.col_reord[i] as usize
                } else {
                    i
                };
                let stamp = b as u64 * ncol + self.thrcol[i] as u64;
                for a in conflicting {
                    let t = a.target(el);
                    if let Some(other) = last.touch(t, stamp, el, g, el)? {
                        return Err(format!(
                            "elements {other} and {el} of thread colour {} in block {b} both modify element {t} of group {g}",
                            self.thrcol[i]
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Every staged argument, and only those, has a local map (the k-th at
    /// `k * exec_length`); an enabled one's entries index its block's list
    /// and round-trip to the global map. (Call after the lists are checked.)
    fn check_local_maps(&self, input: &PlanInput<'_>) -> Result<(), String> {
        let (el_len, nst) = (self.exec_length, self.ninds_staged);
        let mut k = 0usize;
        for (m, a) in input.args.iter().enumerate() {
            let want = (self.inds_staged[m] >= 0).then_some(k * el_len);
            if self.loc_maps_start[m] != want {
                return Err(format!(
                    "loc_maps_start[{m}] is {:?}, should be {want:?}",
                    self.loc_maps_start[m]
                ));
            }
            let Some(ls) = want else { continue };
            k += 1;
            if self.loc_map.len() < ls + el_len {
                return Err(format!("loc_map is too short for arg {m}"));
            }
            if !a.opt {
                continue;
            }
            let st = self.inds_staged[m] as usize;
            for b in 0..self.nblocks {
                let (s, e) = self.block_range(b);
                let first = self.ind_maps_start[st] + self.ind_offs[st + b * nst] as usize;
                let list = &self.ind_map[first..first + self.ind_sizes[st + b * nst] as usize];
                for el in s..e {
                    let l = self.loc_map[ls + el];
                    if usize::try_from(l).ok().and_then(|l| list.get(l))
                        != Some(&(a.target(el) as i32))
                    {
                        return Err(format!("loc_map of arg {m} at element {el} does not map back to the global map"));
                    }
                }
            }
        }
        if self.loc_map.len() != k * el_len {
            return Err(format!(
                "loc_map has {} entries for {k} staged arguments of {el_len} elements",
                self.loc_map.len()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1D chain: edge e joins nodes e and e+1.
    fn chain(n: usize) -> Vec<i32> {
        (0..n).flat_map(|e| [e as i32, e as i32 + 1]).collect()
    }

    fn inc_args(map: &[i32], nodes: usize) -> Vec<PlanArg<'_>> {
        (0..2)
            .map(|idx| PlanArg {
                opt: true,
                ind: 0,
                map,
                map_dim: 2,
                idx,
                access: Access::Inc,
                gbl: false,
                dat_bytes: 8,
                dat_dim: 1,
                to_size: nodes,
            })
            .collect()
    }

    fn input(map: &[i32], n: usize, part: usize, full: bool) -> PlanInput<'_> {
        PlanInput {
            set_size: n,
            core_size: n,
            exec_size: 0,
            part_size: part,
            staging: Staging::All,
            args: inc_args(map, n + 1),
            ninds: 1,
            cache_line_size: 128,
            full,
        }
    }

    #[test]
    fn chain_blocks_alternate_colours() {
        let m = chain(1000);
        let inp = input(&m, 1000, 100, true);
        let p = Plan::build(&inp);
        assert_eq!(p.nblocks, 10);
        assert_eq!(p.ncolors, 2);
        assert_eq!(p.blk_col, vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
        assert_eq!(p.blkmap, vec![0, 2, 4, 6, 8, 1, 3, 5, 7, 9]);
        assert_eq!(p.ncolblk, vec![5, 5]);
        assert!(p.nthrcol.iter().all(|&c| c == 2));
        p.check(&inp).unwrap();
    }

    #[test]
    fn colouring_csv_lists_every_element_once() {
        let m = chain(20);
        for full in [true, false] {
            let p = Plan::build(&input(&m, 20, 5, full));
            let csv = p.colouring_csv();
            let mut lines = csv.lines();
            assert_eq!(
                lines.next(),
                Some("element,block,block_colour,thread_colour")
            );
            let rows: Vec<Vec<i32>> = lines
                .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
                .collect();
            assert_eq!(rows.len(), 20);
            for (e, r) in rows.iter().enumerate() {
                let b = e / 5;
                assert_eq!(r[..3], [e as i32, b as i32, (b % 2) as i32]);
                if full {
                    // a chain: neighbours in a block differ in colour
                    assert!((0..2).contains(&r[3]), "{r:?}");
                } else {
                    assert_eq!(r[3], -1);
                }
            }
        }
    }

    #[test]
    fn block_size_rule() {
        let m = chain(10);
        let inp = input(&m, 10, 0, false);
        // two staged args of 8 bytes: 24K/(64*16)*64 = 1536
        assert_eq!(Plan::build(&inp).bsize, 1536);
    }

    #[test]
    fn cuts_at_core_size() {
        assert_eq!(
            block_bounds(10, 3, 10, 4, false),
            vec![(0, 3), (3, 7), (7, 10)]
        );
        assert_eq!(
            block_bounds(10, 10, 12, 4, true),
            vec![(0, 4), (4, 8), (8, 10), (10, 12)]
        );
        assert!(block_bounds(0, 0, 0, 4, false).is_empty());
    }

    #[test]
    fn checker_catches_a_conflict() {
        let m = chain(100);
        let inp = input(&m, 100, 10, false);
        let mut p = Plan::build(&inp);
        p.check(&inp).unwrap();
        // Give blocks 0 and 2 different colours but 1 the colour of 0 and 3 the
        // colour of 1: neighbours 0/1 now conflict with a block in between.
        let mut q = p.clone();
        q.blk_col[1] = 0;
        q.blk_col[0] = 0;
        q.blk_col[2] = 1;
        q.ncolblk = vec![0, 0];
        for &c in &q.blk_col {
            q.ncolblk[c as usize] += 1;
        }
        let mut order: Vec<i32> = (0..q.nblocks as i32).collect();
        order.sort_by_key(|&b| q.blk_col[b as usize]);
        q.blkmap = order;
        assert!(q.check(&inp).unwrap_err().contains("of colour 0"));
        // Force all blocks into colour 0: neighbours now conflict.
        p.blk_col.iter_mut().for_each(|c| *c = 0);
        p.ncolors = 1;
        p.ncolblk = vec![p.nblocks as i32];
        p.blkmap = (0..p.nblocks as i32).collect();
        assert!(p.check(&inp).unwrap_err().contains("colour 0"));
    }

    #[test]
    fn checker_catches_a_thread_colour_conflict() {
        let m = chain(100);
        let inp = input(&m, 100, 10, true);
        let mut p = Plan::build(&inp);
        p.check(&inp).unwrap();
        // Neighbouring edges of a block share a node: one thread colour for
        // all of them is a race.
        p.thrcol.iter_mut().for_each(|c| *c = 0);
        let err = p.check(&inp).unwrap_err();
        assert!(err.contains("of thread colour 0 in block"), "{err}");
    }

    #[test]
    fn many_colours_need_repeat_passes() {
        // A star: every edge increments node 0, so every block needs its own colour.
        let n = 40;
        let m: Vec<i32> = (0..n).flat_map(|e| [0, e as i32 + 1]).collect();
        let inp = input(&m, n, 1, true);
        let p = Plan::build(&inp);
        assert_eq!(p.ncolors, n);
        p.check(&inp).unwrap();
    }

    #[test]
    fn permute_reorders_elements_by_colour() {
        let m = chain(64);
        let mut inp = input(&m, 64, 64, true);
        inp.staging = Staging::Permute;
        let p = Plan::build(&inp);
        assert_eq!(p.col_offsets, vec![0, 32, 64]);
        assert_eq!(p.col_reord[0], 0);
        assert_eq!(p.col_reord[1], 2);
        assert_eq!(p.col_reord[32], 1);
        p.check(&inp).unwrap();
    }

    /// Found by the fuzzer: COLOR2 asked for a blocks-only plan.
    #[test]
    fn color2_is_always_full() {
        let m = chain(50);
        let mut inp = input(&m, 50, 0, false);
        inp.staging = Staging::Color2;
        let p = Plan::build(&inp);
        assert_eq!(p.nblocks, 1);
        assert_eq!(p.ncolors, 2);
        p.check(&inp).unwrap();
    }

    /// Found by the fuzzer: STAGE_INC with a group mixing INC and READ args.
    #[test]
    fn stage_inc_with_mixed_group() {
        let m = chain(100);
        let mut inp = input(&m, 100, 4, true);
        inp.staging = Staging::Inc;
        inp.args[1].access = Access::Read;
        let p = Plan::build(&inp);
        p.check(&inp).unwrap();
        assert_eq!(p.ninds_staged, 1);
        // Every block lists the targets of both columns.
        assert_eq!(p.ind_sizes[0], 5);
    }

    /// An indirect argument of group `ind` through column `idx` of `map`.
    fn ind_arg(map: &[i32], idx: usize, ind: i32, access: Access, to_size: usize) -> PlanArg<'_> {
        PlanArg {
            opt: true,
            ind,
            map,
            map_dim: 2,
            idx,
            access,
            gbl: false,
            dat_bytes: 8,
            dat_dim: 1,
            to_size,
        }
    }

    /// A disabled argument as the C layer passes it: a group, but no map.
    fn disabled_arg(ind: i32, access: Access) -> PlanArg<'static> {
        PlanArg {
            opt: false,
            map: &[],
            map_dim: 0,
            dat_bytes: 0,
            dat_dim: 0,
            to_size: 0,
            ..ind_arg(&[], 0, ind, access, 0)
        }
    }

    fn loop_input(
        args: Vec<PlanArg<'_>>,
        ninds: usize,
        n: usize,
        staging: Staging,
    ) -> PlanInput<'_> {
        PlanInput {
            set_size: n,
            core_size: n,
            exec_size: 0,
            part_size: 10,
            staging,
            args,
            ninds,
            cache_line_size: 128,
            full: true,
        }
    }

    /// Block `b`'s list of staged group `m`.
    fn block_list(p: &Plan, m: usize, b: usize) -> &[i32] {
        let k = m + b * p.ninds_staged;
        let s = p.ind_maps_start[m] + p.ind_offs[k] as usize;
        &p.ind_map[s..s + p.ind_sizes[k] as usize]
    }

    /// STAGE_INC numbers staged groups by their first INC argument: here
    /// group 1 is staged group 0 and group 0 (READ first) staged group 1.
    /// Lists were sized in one order and copied in the other: out of bounds.
    #[test]
    fn stage_inc_staged_order_differs_from_group_order() {
        let nodes = chain(100);
        let args = vec![
            ind_arg(&nodes, 0, 0, Access::Read, 101),
            ind_arg(&nodes, 0, 1, Access::Inc, 101),
            ind_arg(&nodes, 1, 0, Access::Inc, 101),
        ];
        let inp = loop_input(args, 2, 100, Staging::Inc);
        let p = Plan::build(&inp);
        p.check(&inp).unwrap();
        assert_eq!(p.inds_staged, vec![-1, 0, 1]);
        assert_eq!(p.ninds_staged, 2);
        assert_eq!(p.nindirect, vec![110, 100]);
        assert_eq!(p.ind_maps_start, vec![0, 100]);
        // Group 0 lists both columns (its READ argument too), group 1 one.
        assert_eq!(block_list(&p, 1, 3), (30..=40).collect::<Vec<_>>());
        assert_eq!(block_list(&p, 0, 3), (30..40).collect::<Vec<_>>());
        assert_eq!(p.loc_maps_start, vec![None, Some(0), Some(100)]);
        assert_eq!(p.loc_map[100 + 35], 6);
    }

    /// The same mix-up without a panic: the smaller group sized the first
    /// region, so the larger one overwrote the smaller one's lists.
    #[test]
    fn stage_inc_staged_order_lays_out_ind_map() {
        let nodes = chain(100);
        // Few targets: edge e joins cells e / 20 and e / 20 + 1.
        let cells: Vec<i32> = (0..100).flat_map(|e| [e / 20, e / 20 + 1]).collect();
        let args = vec![
            ind_arg(&cells, 0, 0, Access::Read, 6),
            ind_arg(&nodes, 0, 1, Access::Inc, 101),
            ind_arg(&cells, 1, 0, Access::Inc, 6),
        ];
        let inp = loop_input(args, 2, 100, Staging::Inc);
        let p = Plan::build(&inp);
        p.check(&inp).unwrap();
        assert_eq!(p.inds_staged, vec![-1, 0, 1]);
        assert_eq!(p.nindirect, vec![20, 100]);
        assert_eq!(p.ind_maps_start, vec![0, 100]);
        for b in 0..p.nblocks {
            let c = (b / 2) as i32;
            assert_eq!(block_list(&p, 1, b), [c, c + 1]);
            assert_eq!(
                block_list(&p, 0, b),
                (10 * b as i32..10 * b as i32 + 10).collect::<Vec<_>>()
            );
        }
    }

    /// A group whose first argument is disabled but whose INC argument is
    /// enabled: the group was treated as disabled (no colour masks, no
    /// lists) and its enabled argument indexed the empty arrays.
    #[test]
    fn disabled_first_argument_of_a_group() {
        // Column 1: pairs of edges share a node.
        let pairs: Vec<i32> = (0..100).flat_map(|e| [e, e / 2]).collect();
        for staging in [
            Staging::None,
            Staging::Inc,
            Staging::All,
            Staging::Permute,
            Staging::Color2,
        ] {
            for full in [false, true] {
                let args = vec![
                    disabled_arg(0, Access::Inc),
                    ind_arg(&pairs, 1, 0, Access::Inc, 100),
                ];
                let mut inp = loop_input(args, 1, 100, staging);
                inp.full = full;
                let p = Plan::build(&inp);
                p.check(&inp).unwrap();
                if staging == Staging::Color2 {
                    assert_eq!(p.ncolors, 2);
                } else {
                    // Blocks of 10 elements start at even elements: no block shares a node.
                    assert_eq!(p.ncolors, 1);
                }
                if full && matches!(staging, Staging::All | Staging::Inc) {
                    assert_eq!(p.inds_staged, vec![0, 0]);
                    assert!(p.nthrcol.iter().all(|&c| c == 2));
                    assert_eq!(block_list(&p, 0, 2), (10..15).collect::<Vec<_>>());
                    // The disabled argument's local map is zeros.
                    assert!(p.loc_map[..100].iter().all(|&l| l == 0));
                    assert_eq!(p.loc_map[100 + 23], 1);
                    assert_eq!(p.nshared, 64);
                }
            }
        }
    }

    /// The checker validates the staged numbering and the renumbering.
    #[test]
    fn checker_catches_bad_renumbering() {
        let nodes = chain(100);
        let cells: Vec<i32> = (0..100).flat_map(|e| [e / 20, e / 20 + 1]).collect();
        let args = vec![
            ind_arg(&cells, 0, 0, Access::Read, 6),
            ind_arg(&nodes, 0, 1, Access::Inc, 101),
            ind_arg(&cells, 1, 0, Access::Inc, 6),
        ];
        let inp = loop_input(args, 2, 100, Staging::Inc);
        let p = Plan::build(&inp);
        p.check(&inp).unwrap();
        let fails = |f: &dyn Fn(&mut Plan), what: &str| {
            let mut q = p.clone();
            f(&mut q);
            let err = q.check(&inp).unwrap_err();
            assert!(err.contains(what), "{what}: {err}");
        };
        // Staged in group order instead of first-use order.
        fails(&|q| q.inds_staged = vec![-1, 1, 0], "inds_staged[1]");
        // The READ argument staged too.
        fails(&|q| q.inds_staged[0] = 1, "inds_staged[0]");
        fails(&|q| q.ninds_staged = 1, "ninds_staged is 1");
        // The regions of the two staged groups swapped (the old layout).
        fails(&|q| q.ind_maps_start = vec![20, 0], "ind_maps_start[0]");
        // A list one entry short, a list not where the sizes put it.
        fails(&|q| q.ind_sizes[2 * 4] -= 1, "staged group 0 in block 4");
        fails(&|q| q.ind_offs[2 * 5] += 1, "staged group 0, block 5");
        fails(
            &|q| q.ind_map[100] = 1,
            "ind_map of staged group 1 in block 0",
        );
        fails(&|q| q.nindirect[1] = 7, "nindirect[1]");
        fails(&|q| q.loc_map[100 + 3] = 2, "loc_map of arg 2 at element 3");
        fails(&|q| q.loc_map[7] = -1, "loc_map of arg 1 at element 7");
        fails(&|q| q.loc_maps_start[0] = Some(0), "loc_maps_start[0]");
        fails(&|q| q.loc_map.truncate(150), "loc_map is too short");
    }
}
