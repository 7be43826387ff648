//! Fuzz plan construction on arbitrary maps: any mesh the bytes describe must
//! give a plan that passes the checker (blocks tile the set, blkmap is a
//! permutation grouped by colour, no same-colour conflicts, local maps
//! round-trip) for every staging mode and both plan levels.
#![no_main]

use libfuzzer_sys::fuzz_target;
use op2_core::arg::Access;
use op2_core::plan::{Plan, PlanArg, PlanInput, Staging};

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let n = data[0] as usize % 200;
    let to = 1 + data[1] as usize % 100;
    let dim = 1 + data[2] as usize % 4;
    let part = data[3] as usize % 70;
    let core = if n == 0 { 0 } else { data[4] as usize % (n + 1) };
    let flags = data[5];
    let bytes = &data[6..];
    let map: Vec<i32> = (0..n * dim)
        .map(|i| bytes.get(i).map_or(i % to, |&b| b as usize % to) as i32)
        .collect();
    let staging = match flags % 4 {
        0 => Staging::All,
        1 => Staging::Inc,
        2 => Staging::Permute,
        _ => Staging::Color2,
    };
    let acc = |k: usize| match (flags >> 2).wrapping_add(k as u8) % 3 {
        0 => Access::Inc,
        1 => Access::Rw,
        _ => Access::Read,
    };
    let mut args: Vec<PlanArg<'_>> = (0..dim)
        .map(|idx| PlanArg {
            opt: true,
            ind: 0,
            map: &map,
            map_dim: dim,
            idx,
            access: acc(idx),
            gbl: false,
            dat_bytes: 8,
            dat_dim: 1,
            to_size: to,
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
        exec_size: 0,
        part_size: part,
        staging,
        args,
        ninds: 1,
        cache_line_size: 128,
        full: flags & 0x80 != 0,
    };
    let plan = Plan::build(&input);
    if let Err(e) = plan.check(&input) {
        panic!("plan check failed: {e}");
    }
});
