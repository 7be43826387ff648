//! The c-examples programs built with the test harness and checked against
//! their plain-loop references (see c-examples/README.md): with the
//! sequential library airfoil and jac must print the same result lines as
//! airfoil_ref / jac_ref and airfoil must write a bitwise identical final q;
//! jac_c and reduction check themselves. Problem sizes are small so each run
//! takes well under a second.

use op2_tests::{build_once, out_dir, run, run_in, Lang, Link, Program, Run};
use std::path::{Path, PathBuf};

const MESH: &str = "c-examples/common/naca_mesh.c";

fn airfoil() -> PathBuf {
    build_once(
        &Program::new(
            "ex_airfoil",
            Lang::Cxx17,
            &["c-examples/airfoil/airfoil.cpp", MESH],
        )
        .include("c-examples/common")
        .include("c-examples/airfoil"),
    )
}
fn airfoil_ref() -> PathBuf {
    build_once(
        &Program::new(
            "ex_airfoil_ref",
            Lang::Cxx17,
            &["c-examples/airfoil/airfoil_ref.cpp", MESH],
        )
        .include("c-examples/common")
        .include("c-examples/airfoil"),
    )
}
fn meshgen() -> PathBuf {
    build_once(
        &Program::new(
            "ex_meshgen",
            Lang::C99,
            &["c-examples/meshgen/meshgen.c", MESH],
        )
        .include("c-examples/common"),
    )
}
fn jac_program(name: &str, lang: Lang, src: &str) -> Program {
    Program::new(name, lang, &[src]).include("c-examples/jac")
}
fn jac_ref() -> PathBuf {
    build_once(&jac_program(
        "ex_jac_ref",
        Lang::Cxx17,
        "c-examples/jac/jac_ref.cpp",
    ))
}

/// The lines a program prints about its results: without OP2's banner and
/// timing table and without run times.
fn result_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| {
            !(l.trim().is_empty()
                || l.contains("Initializing OP2")
                || l.contains("runtime")
                || l.contains(';')
                || l.starts_with("  count ")
                || l.starts_with(" ---"))
        })
        .collect()
}

fn scratch(tag: &str) -> PathBuf {
    out_dir().join("runs").join(tag)
}

fn assert_same_results(op2: &Run, reference: &Run, min_lines: usize) {
    op2.ok();
    reference.ok();
    let (a, b) = (result_lines(&op2.stdout), result_lines(&reference.stdout));
    assert!(
        b.len() >= min_lines,
        "too little output:\n{}",
        reference.stdout
    );
    assert_eq!(a, b, "OP2 run vs plain-loop reference");
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

const AIRFOIL_ARGS: &[&str] = &["--iters=300", "--out=q.bin"];

/// Built-in 3000-cell O-grid, 300 iterations: same rms history and q sums as
/// airfoil_ref, and the same final q to the last bit.
#[test]
fn airfoil_matches_reference() {
    let args = [&["--cells=3000"], AIRFOIL_ARGS].concat();
    let op2 = run(&airfoil(), &args, "ex-airfoil");
    let reference = run(&airfoil_ref(), &args, "ex-airfoil-ref");
    // generating.., sizes, initialising.., 3 rms lines, q sums, wrote q
    assert_same_results(&op2, &reference, 8);
    assert!(op2.stdout.contains(" 300  "), "{}", op2.stdout);
    let q = read(&scratch("ex-airfoil").join("q.bin"));
    assert_eq!(
        q.len(),
        8 + 3042 * 4 * 8,
        "count, dim, 3042 cells x 4 doubles"
    );
    assert!(
        q == read(&scratch("ex-airfoil-ref").join("q.bin")),
        "final q differs"
    );
}

/// The same mesh written by meshgen and read back: airfoil equals airfoil_ref
/// on the file, and both equal the run on the built-in mesh (the file holds
/// the mesh exactly).
#[test]
fn airfoil_on_meshgen_file_matches_reference() {
    let tag = "ex-airfoil-file";
    let dir = scratch(tag);
    run(&meshgen(), &["--cells", "3000", "-o", "grid.dat"], tag).ok();
    let args = [&["grid.dat"], AIRFOIL_ARGS].concat();
    let op2 = run_in(&airfoil(), &args, &dir, &[]);
    let q_op2 = read(&dir.join("q.bin"));
    let reference = run_in(&airfoil_ref(), &args, &dir, &[]);
    let q_ref = read(&dir.join("q.bin"));
    assert_same_results(&op2, &reference, 8);
    assert!(op2.stdout.contains("reading in grid"), "{}", op2.stdout);
    assert!(
        q_op2 == q_ref,
        "final q differs from airfoil_ref on the file"
    );

    let builtin = run(
        &airfoil_ref(),
        &[&["--cells=3000"], AIRFOIL_ARGS].concat(),
        "ex-airfoil-file-builtin",
    );
    builtin.ok();
    let from_file: Vec<&str> = result_lines(&op2.stdout)[1..].to_vec();
    assert_eq!(
        from_file,
        result_lines(&builtin.stdout)[1..],
        "file vs built-in mesh"
    );
    assert!(q_op2 == read(&scratch("ex-airfoil-file-builtin").join("q.bin")));
}

const JAC_ARGS: &[&str] = &["--n=30", "--iters=1000"];

/// jac (C++ op_par_loop) prints exactly jac_ref's lines.
#[test]
fn jac_matches_reference() {
    let jac = build_once(&jac_program(
        "ex_jac",
        Lang::Cxx17,
        "c-examples/jac/jac.cpp",
    ));
    let op2 = run(&jac, JAC_ARGS, "ex-jac");
    let reference = run(&jac_ref(), JAC_ARGS, "ex-jac-ref");
    // header, 2 history lines, final sums, 4 probes
    assert_same_results(&op2, &reference, 8);
}

/// jac_c (C99) passes its own plain-loop check bitwise, and its result lines
/// are jac_ref's.
#[test]
fn jac_c_passes_and_matches_reference() {
    let jac_c = build_once(&jac_program(
        "ex_jac_c",
        Lang::C99,
        "c-examples/c99/jac_c.c",
    ));
    let op2 = run(&jac_c, JAC_ARGS, "ex-jac-c");
    op2.ok();
    assert!(
        op2.stdout.contains("bitwise identical: yes"),
        "{}",
        op2.stdout
    );
    assert!(op2.stdout.lines().any(|l| l == "PASSED"), "{}", op2.stdout);
    let reference = run(&jac_ref(), JAC_ARGS, "ex-jac-c-ref");
    reference.ok();
    let lines: Vec<&str> = result_lines(&op2.stdout)
        .into_iter()
        .filter(|l| !l.contains("plain-loop check") && *l != "PASSED")
        .collect();
    assert_eq!(lines, result_lines(&reference.stdout));
}

/// reduction checks INC/MIN/MAX globals itself and prints PASSED.
#[test]
fn reduction_passes() {
    let exe = build_once(&Program::new(
        "ex_reduction",
        Lang::Cxx17,
        &["c-examples/reduction/reduction.cpp"],
    ));
    let r = run(&exe, &[], "ex-reduction");
    r.ok();
    assert!(!r.stdout.contains("MISMATCH"), "{}", r.stdout);
    assert!(r.stdout.matches(" ok").count() >= 20, "{}", r.stdout);
    assert_eq!(r.stdout.lines().last(), Some("PASSED"), "{}", r.stdout);
}

/// jac linked against libop2_seq.so instead of the archive: the executable
/// needs the shared library and gives jac_ref's results.
#[test]
fn jac_linked_to_shared_library() {
    let exe = build_once(
        &jac_program("ex_jac_shared", Lang::Cxx17, "c-examples/jac/jac.cpp").link(Link::Shared),
    );
    let dynamic = std::process::Command::new("readelf")
        .arg("-d")
        .arg(&exe)
        .output()
        .expect("run readelf");
    let dynamic = String::from_utf8_lossy(&dynamic.stdout);
    assert!(
        dynamic.contains("Shared library: [libop2_seq.so]"),
        "not linked to libop2_seq.so:\n{dynamic}"
    );
    let op2 = run(&exe, JAC_ARGS, "ex-jac-shared");
    let reference = run(&jac_ref(), JAC_ARGS, "ex-jac-shared-ref");
    assert_same_results(&op2, &reference, 8);
}

fn aero_meshgen() -> PathBuf {
    build_once(
        &Program::new(
            "ex_aero_meshgen",
            Lang::C99,
            &["c-examples/meshgen/aero_meshgen.c", MESH],
        )
        .include("c-examples/common"),
    )
}

/// An aero mesh file read back: node coordinates (as written), cells as node
/// numbers, boundary node numbers.
struct AeroMesh {
    nodes: Vec<String>,
    cells: Vec<[usize; 4]>,
    bnodes: Vec<usize>,
}

fn read_aero_mesh(p: &Path) -> AeroMesh {
    let text = String::from_utf8(read(p)).unwrap();
    let mut lines = text.lines();
    let head: Vec<usize> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    let nodes: Vec<String> = lines.by_ref().take(head[0]).map(str::to_owned).collect();
    let cells: Vec<[usize; 4]> = lines
        .by_ref()
        .take(head[1])
        .map(|l| {
            let v: Vec<usize> = l.split_whitespace().map(|w| w.parse().unwrap()).collect();
            [v[0], v[1], v[2], v[3]]
        })
        .collect();
    let bnodes: Vec<usize> = lines.map(|l| l.trim().parse().unwrap()).collect();
    assert_eq!(
        (nodes.len(), cells.len(), bnodes.len()),
        (head[0], head[1], head[2])
    );
    AeroMesh {
        nodes,
        cells,
        bnodes,
    }
}

/// aero_meshgen --shuffle numbers the same mesh at random: every cell has the
/// same corners (by coordinates, in the same order) and the same boundary
/// nodes as in the generator's own numbering, the numbering is not the
/// identity, a seed always gives the same file, another seed another one.
#[test]
fn aero_meshgen_shuffle_renumbers_the_same_mesh() {
    let tag = "ex-aero-meshgen-shuffle";
    let dir = scratch(tag);
    let gen = |args: &[&str]| run_in(&aero_meshgen(), args, &dir, &[]);
    let dims = ["--ni", "24", "--nj", "10"];
    gen(&[&dims[..], &["-o", "plain.dat"]].concat()).ok();
    let r = gen(&[&dims[..], &["--shuffle", "11", "-o", "s11.dat"]].concat());
    r.ok();
    assert!(
        r.stdout.contains("numbered at random (seed 11)"),
        "{}",
        r.stdout
    );
    gen(&[&dims[..], &["--shuffle=11", "-o", "s11b.dat"]].concat()).ok();
    gen(&[&dims[..], &["--shuffle", "12", "-o", "s12.dat"]].concat()).ok();
    assert!(read(&dir.join("s11.dat")) == read(&dir.join("s11b.dat")));
    assert!(read(&dir.join("s11.dat")) != read(&dir.join("s12.dat")));

    let plain = read_aero_mesh(&dir.join("plain.dat"));
    let shuffled = read_aero_mesh(&dir.join("s11.dat"));
    let corners = |m: &AeroMesh| {
        let mut v: Vec<Vec<String>> = m
            .cells
            .iter()
            .map(|c| c.iter().map(|&n| m.nodes[n].clone()).collect())
            .collect();
        v.sort();
        v
    };
    let bound = |m: &AeroMesh| {
        let mut v: Vec<String> = m.bnodes.iter().map(|&n| m.nodes[n].clone()).collect();
        v.sort();
        v
    };
    let mut a = plain.nodes.clone();
    let mut b = shuffled.nodes.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b, "the same node coordinates");
    assert_eq!(corners(&plain), corners(&shuffled), "the same cells");
    assert_eq!(bound(&plain), bound(&shuffled), "the same boundary nodes");
    assert!(shuffled.bnodes.windows(2).all(|w| w[0] < w[1]));
    assert!(plain.nodes != shuffled.nodes, "nodes renumbered");
    assert!(plain.cells != shuffled.cells, "cells reordered");

    let bad = gen(&["--shuffle", "0"]);
    assert_eq!(bad.status, Some(2));
    assert!(
        bad.stderr.contains("invalid shuffle seed: 0"),
        "{}",
        bad.stderr
    );
}
