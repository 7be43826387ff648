//! Fuzz plan construction on arbitrary maps and loops: any mesh and
//! arguments the bytes describe must give a plan that passes the checker
//! (blocks tile the exec range, blkmap is a permutation grouped by colour, no
//! same-colour conflicts, staged numbering as OP2's, staged block lists hold
//! exactly the groups' targets, local maps round-trip) for every staging mode
//! and both plan levels.
//!
//! Bytes: set size, target set size, map dimension, part size, core size,
//! flags (staging, full plan, indirect reduction), exec halo size, argument
//! count, one byte per argument (column, group label, access, disabled),
//! then the map entries. Group labels are numbered densely in label order, so
//! a group's number need not follow its first use (as the C layer's grouping
//! by dat gives), groups mix accesses, and any argument of a group may be
//! disabled (as the C layer passes it: a group, but no map).
#![no_main]

use libfuzzer_sys::fuzz_target;
use op2_core::arg::Access;
use op2_core::plan::{Plan, PlanArg, PlanInput, Staging};

/// One argument byte: column (bits 0-1), group label (bits 2-3), access
/// (bits 4-5), disabled (bit 6).
struct ArgByte(u8);

impl ArgByte {
    fn idx(&self, dim: usize) -> usize {
        (self.0 & 3) as usize % dim
    }
    fn label(&self) -> u8 {
        (self.0 >> 2) & 3
    }
    fn access(&self) -> Access {
        [Access::Inc, Access::Read, Access::Rw, Access::Write][((self.0 >> 4) & 3) as usize]
    }
    fn opt(&self) -> bool {
        self.0 & 0x40 == 0
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let n = data[0] as usize % 200;
    let to = 1 + data[1] as usize % 100;
    let dim = 1 + data[2] as usize % 4;
    let part = data[3] as usize % 70;
    let core = data[4] as usize % (n + 1);
    let flags = data[5];
    let exec = data[6] as usize % 32;
    let nargs = 1 + data[7] as usize % 6;
    let rest = &data[8..];
    let arg_bytes: Vec<ArgByte> = (0..nargs)
        .map(|k| ArgByte(rest.get(k).copied().unwrap_or(k as u8)))
        .collect();
    let bytes = rest.get(nargs..).unwrap_or(&[]);
    let map: Vec<i32> = (0..(n + exec) * dim)
        .map(|i| bytes.get(i).map_or(i % to, |&b| b as usize % to) as i32)
        .collect();
    let staging = match flags % 5 {
        0 => Staging::All,
        1 => Staging::Inc,
        2 => Staging::Permute,
        3 => Staging::Color2,
        _ => Staging::None,
    };
    let mut labels: Vec<u8> = arg_bytes.iter().map(ArgByte::label).collect();
    labels.sort_unstable();
    labels.dedup();
    let mut args: Vec<PlanArg<'_>> = arg_bytes
        .iter()
        .map(|b| {
            let ind = labels.binary_search(&b.label()).unwrap() as i32;
            let opt = b.opt();
            PlanArg {
                opt,
                ind,
                map: if opt { &map } else { &[] },
                map_dim: if opt { dim } else { 0 },
                idx: b.idx(dim),
                access: b.access(),
                gbl: false,
                dat_bytes: if opt { 8 * (ind as usize + 1) } else { 0 },
                dat_dim: if opt { ind as usize + 1 } else { 0 },
                to_size: if opt { to } else { 0 },
            }
        })
        .collect();
    if flags & 0x40 != 0 {
        // An indirect global reduction changes the block cuts and colours.
        args.push(PlanArg {
            opt: true,
            ind: -1,
            map: &[],
            map_dim: 0,
            idx: 0,
            access: Access::Inc,
            gbl: true,
            dat_bytes: 0,
            dat_dim: 0,
            to_size: 0,
        });
    }
    let input = PlanInput {
        set_size: n,
        core_size: core,
        exec_size: exec,
        part_size: part,
        staging,
        args,
        ninds: labels.len(),
        cache_line_size: 128,
        full: flags & 0x80 != 0,
    };
    let plan = Plan::build(&input);
    if let Err(e) = plan.check(&input) {
        panic!("plan check failed: {e}");
    }
});
