//! Write the generated code of the sample loops (c-examples/airfoil's five
//! loops and the synthetic ones of `op2_codegen::samples`), both dialects and the three conflict schemes,
//! into a folder, one file per loop, for the compile check
//! (scripts/codegen_check.sh):
//!
//!   cargo run -p op2-codegen --example dump -- OUT_DIR [C_EXAMPLES_AIRFOIL_DIR]
//!
//! Each file is `<loop>-<colour2|colour2-global|atomics>[-wide].<cl|cu>`
//! (`-wide`: with 64-bit offsets, `Options::wide_offsets`);
//! `entries.txt` lists, per line, `file entry scheme groups params...`:
//! scheme `staged`, `coloured` or `flat`, groups `dat:map,...` (or `-`), then the launch parameters in
//! order as [`op2_codegen::LaunchParam::token`] writes them.

use op2_codegen::{generate, samples, Conflicts, Dialect, Options};
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = std::path::PathBuf::from(args.next().ok_or("usage: dump OUT_DIR [AIRFOIL_DIR]")?);
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| "c-examples/airfoil".into()));
    std::fs::create_dir_all(&out)?;
    let mut entries = std::fs::File::create(out.join("entries.txt"))?;
    for conflicts in [
        Conflicts::Colour2,
        Conflicts::Colour2Global,
        Conflicts::Atomics,
    ] {
        let mut loops = samples::airfoil(&dir, conflicts)?;
        loops.push(samples::synthetic(conflicts));
        loops.push(samples::wide_ints(conflicts));
        loops.push(samples::flags(conflicts));
        if conflicts != Conflicts::Atomics {
            // (OP_RW through a map: atomics cannot serve it)
            loops.push(samples::collapsed(conflicts));
        }
        for s in loops {
            // the kernel's source, for launchers that compute a reference
            std::fs::write(out.join(format!("{}.kernel.h", s.desc.name)), &s.source)?;
            let variants = [
                (Dialect::OpenCl, "cl", false),
                (Dialect::Cuda, "cu", false),
                (Dialect::OpenCl, "cl", true),
                (Dialect::Cuda, "cu", true),
            ];
            for (dialect, ext, wide_offsets) in variants {
                let g = generate(
                    &s.desc,
                    &s.source,
                    &s.consts,
                    Options {
                        dialect,
                        block_size: 64,
                        wide_offsets,
                        fma: false,
                    },
                )?;
                let tag = match conflicts {
                    Conflicts::Colour2 => "colour2",
                    Conflicts::Colour2Global => "colour2-global",
                    Conflicts::Atomics => "atomics",
                };
                let wide = if wide_offsets { "-wide" } else { "" };
                let file = format!("{}-{tag}{wide}.{ext}", s.desc.name);
                std::fs::write(out.join(&file), &g.text)?;
                let groups: Vec<String> = g
                    .groups
                    .iter()
                    .map(|x| format!("{}:{}", x.dat, x.map))
                    .collect();
                let params: Vec<String> = g.params.iter().map(|p| p.token()).collect();
                writeln!(
                    entries,
                    "{file} {} {} {} {}",
                    g.entry,
                    match g.scheme {
                        op2_codegen::Scheme::Staged => "staged",
                        op2_codegen::Scheme::Coloured => "coloured",
                        op2_codegen::Scheme::Flat => "flat",
                    },
                    if groups.is_empty() {
                        "-".to_string()
                    } else {
                        groups.join(",")
                    },
                    params.join(" ")
                )?;
            }
        }
    }
    Ok(())
}
