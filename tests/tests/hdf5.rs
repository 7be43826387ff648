//! OP2's serial HDF5 API (libop2_hdf5, linked as OP2 links it:
//! `-lop2_hdf5 -lop2_seq|-lop2_openmp -lhdf5`, static and shared): round
//! trips of every function and type string (tests/c/hdf5_api.c), files
//! written straight through libhdf5 in OP2's layout read by op2-rs and
//! op2-rs's files read the way OP2 reads them (tests/c/hdf5_fixture.c),
//! h5dump's view of the layout, conversion notices, errors, and the symbols
//! and dependencies of the library itself.

mod common;

use common::{assert_all_pass, assert_op2_error};
use op2_tests::{build_once, hdf5_dir, lib_dir, out_dir, run_in, Lang, Link, Program, Run};
use std::path::{Path, PathBuf};
use std::process::Command;

fn api(lib: &str, link: Link) -> PathBuf {
    build_once(
        &Program::new("hdf5_api", Lang::C99, &["tests/c/hdf5_api.c"])
            .lib(lib)
            .link(link)
            .with_hdf5(),
    )
}

fn fixture() -> PathBuf {
    let inc = format!("-I{}", hdf5_dir().join("include").display());
    build_once(
        &Program::new("hdf5_fixture", Lang::C99, &["tests/c/hdf5_fixture.c"])
            .flag(&inc)
            .with_hdf5(),
    )
}

/// A fresh scratch directory.
fn scratch(tag: &str) -> PathBuf {
    let dir = out_dir().join("runs").join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run hdf5_api "write" in a fresh directory (the files the other modes read).
fn written(exe: &Path, tag: &str) -> PathBuf {
    let dir = scratch(tag);
    assert_all_pass(&run_in(exe, &["write"], &dir, &[]), &["write"]);
    dir
}

const READ_CHECKS: &[&str] = &[
    "sets", "map", "dats", "groups", "consts", "fetched", "missing",
];

fn round_trip(lib: &str, link: Link, tag: &str) {
    let exe = api(lib, link);
    let dir = written(&exe, tag);
    let r = run_in(&exe, &["read"], &dir, &[]);
    assert_all_pass(&r, READ_CHECKS);
    assert!(
        r.stdout
            .contains("op_decl_dat_hdf5: dat \"nope\" not found in file \"dump.h5\""),
        "{}",
        r.stdout
    );
}

/// Every function, every type string, groups, constants, fetch variants:
/// written by op2-rs and read back, statically linked with libop2_seq.
#[test]
fn round_trip_seq_static() {
    round_trip("op2_seq", Link::Static, "hdf5-seq-static");
}

/// The same with the shared libraries (`-lop2_hdf5 -lop2_seq`).
#[test]
fn round_trip_seq_shared() {
    round_trip("op2_seq", Link::Shared, "hdf5-seq-shared");
}

/// The same beside libop2_openmp (static and shared).
#[test]
fn round_trip_openmp() {
    round_trip("op2_openmp", Link::Static, "hdf5-omp-static");
    round_trip("op2_openmp", Link::Shared, "hdf5-omp-shared");
}

/// Progress lines of HDF5 reads: on a terminal (util-linux's `script`) at
/// `OP_diags >= 2`, a start and an end line with the elapsed time for each
/// op_decl_map_hdf5/op_decl_dat_hdf5; none on a pipe.
#[test]
fn reads_show_progress_on_a_terminal() {
    let exe = api("op2_seq", Link::Static);
    let dir = written(&exe, "hdf5-progress");
    let piped = run_in(&exe, &["read"], &dir, &[("HDF5_API_DIAGS", "2")]);
    assert_all_pass(&piped, READ_CHECKS);
    assert!(
        !piped.stderr.contains("op2-rs: reading"),
        "{}",
        piped.stderr
    );
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped the terminal half: no `script`");
        return;
    }
    let cmd = format!("'{}' read", exe.display());
    let r = run_in(
        Path::new("script"),
        &["-qec", &cmd, "/dev/null"],
        &dir,
        &[("HDF5_API_DIAGS", "2")],
    );
    assert_eq!(r.status, Some(0), "{}{}", r.stdout, r.stderr);
    let text = r.stdout.replace('\r', "");
    let start = "op2-rs: reading map \"pcell\" from dump.h5 ...";
    assert!(text.lines().any(|l| l == start), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with(start) && l.ends_with(" s") && l.len() > start.len()),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l == "op2-rs: reading dat \"grp/sub/q\" from dump.h5 ..."),
        "{text}"
    );
}

/// A file written through libhdf5 in OP2's layout (junk after the map type
/// string's NUL, a 64-bit map, a group, a constant) reads in op2-rs.
#[test]
fn reads_files_in_op2_layout() {
    let dir = scratch("hdf5-fixture-read");
    let r = run_in(&fixture(), &["write", "fix.h5"], &dir, &[]);
    assert_eq!(r.status, Some(0), "{}{}", r.stdout, r.stderr);
    let r = run_in(
        &api("op2_seq", Link::Static),
        &["fixture", "fix.h5"],
        &dir,
        &[],
    );
    assert_all_pass(
        &r,
        &[
            "fixture sets",
            "fixture map",
            "fixture long map",
            "fixture dats",
            "fixture group dat",
            "fixture const",
        ],
    );
}

/// op2-rs's files read the way OP2 reads them: dataset types and shapes,
/// `int` attributes of one element, scalar NULLTERM string attributes of OP2's sizes.
#[test]
fn files_read_by_an_op2_style_reader() {
    let dir = written(&api("op2_seq", Link::Static), "hdf5-fixture-check");
    let r = run_in(&fixture(), &["check", "dump.h5"], &dir, &[]);
    assert_all_pass(
        &r,
        &[
            "set",
            "map",
            "dat",
            "long long dat",
            "real dat",
            "group dat",
            "const",
        ],
    );
}

fn h5dump(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("h5dump")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("h5dump (Debian: hdf5-tools)");
    assert!(out.status.success(), "h5dump {args:?} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The block of h5dump's header output that describes `what` (up to the next object).
fn block<'a>(dump: &'a str, what: &str) -> &'a str {
    let at = dump
        .find(what)
        .unwrap_or_else(|| panic!("{what} not in\n{dump}"));
    let rest = &dump[at + what.len()..];
    let end = ["DATASET \"", "GROUP \""]
        .iter()
        .filter_map(|m| rest.find(m))
        .min()
        .unwrap_or(rest.len());
    &rest[..end]
}

/// h5dump's view: names, groups, shapes, datatypes and attribute types.
#[test]
fn h5dump_shows_op2_layout() {
    let dir = written(&api("op2_seq", Link::Static), "hdf5-h5dump");
    let d = h5dump(&dir, &["-H", "dump.h5"]);
    let nodes = block(&d, "DATASET \"nodes\"");
    assert!(nodes.contains("H5T_STD_I32LE") && nodes.contains("SIMPLE { ( 1 ) / ( 1 ) }"));
    assert!(!nodes.contains("ATTRIBUTE"), "{nodes}");
    let map = block(&d, "DATASET \"pcell\"");
    for want in [
        "H5T_STD_I32LE",
        "SIMPLE { ( 3, 3 ) / ( 3, 3 ) }",
        "ATTRIBUTE \"size\"",
        "ATTRIBUTE \"dim\"",
        "STRSIZE 10;",
        "STRPAD H5T_STR_NULLTERM;",
        "CTYPE H5T_C_S1;",
        "DATASPACE  SCALAR",
    ] {
        assert!(map.contains(want), "pcell lacks {want}:\n{map}");
    }
    for (name, dtype, strsize) in [
        ("t0", "H5T_IEEE_F64LE", 6),
        ("t2", "H5T_IEEE_F64LE", 16),
        ("t5", "H5T_IEEE_F32LE", 9),
        ("t12", "H5T_STD_I32LE", 10),
        ("t13", "H5T_STD_I64LE", 4),
        ("t16", "H5T_STD_I64LE", 13),
    ] {
        let b = block(&d, &format!("DATASET \"{name}\""));
        assert!(b.contains(dtype), "{name}: {b}");
        assert!(b.contains("SIMPLE { ( 5, 2 ) / ( 5, 2 ) }"), "{name}: {b}");
        assert!(b.contains(&format!("STRSIZE {strsize};")), "{name}: {b}");
    }
    assert!(d.contains("GROUP \"grp\"") && d.contains("GROUP \"sub\""));
    let a = h5dump(&dir, &["-a", "/t2/type", "dump.h5"]);
    assert!(a.contains("\"double precision\""), "{a}");
    let a = h5dump(&dir, &["-a", "/t0/size", "dump.h5"]);
    assert!(a.contains("(0): 16"), "{a}");
    let c = h5dump(&dir, &["-H", "const.h5"]);
    let c0 = block(&c, "DATASET \"c0\"");
    assert!(c0.contains("SIMPLE { ( 3 ) / ( 3 ) }") && !c0.contains("\"size\""));
    let f = h5dump(&dir, &["-H", "fetch.h5"]);
    assert!(f.contains("GROUP \"deep\"") && f.contains("DATASET \"path\""));
}

/// A dataset stored as another type is converted, with OP2's notice.
#[test]
fn type_conversion_with_notice() {
    let exe = api("op2_seq", Link::Static);
    let dir = written(&exe, "hdf5-convert");
    let r = run_in(&exe, &["convert"], &dir, &[]);
    assert_all_pass(&r, &["convert"]);
    assert!(
        r.stdout.contains(
            "op_decl_dat_hdf5: dataset \"t0\" in file \"dump.h5\" holds double, read as float: converting"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("holds int, read as double"));
}

fn error_run(mode: &str) -> Run {
    let exe = api("op2_seq", Link::Static);
    let dir = written(&exe, &format!("hdf5-err-{mode}"));
    run_in(&exe, &[mode], &dir, &[])
}

/// Bad input: one line naming the call, the object, the file and dataset; status 1.
#[test]
fn errors_name_call_object_and_dataset() {
    let dat = Some("dat \"t0\"");
    assert_op2_error(
        &error_run("dimerr"),
        "op_decl_dat_hdf5",
        dat,
        "dataset \"t0\" in file \"dump.h5\": has dim 2 (columns), the dat has dim 3",
    );
    assert_op2_error(
        &error_run("badtype"),
        "op_decl_dat_hdf5",
        dat,
        "unsupported type \"bool\"",
    );
    assert_op2_error(
        &error_run("sizeerr"),
        "op_decl_map_hdf5",
        Some("map \"pcell\""),
        "has 3 rows, the map's from-set has 4 elements",
    );
    assert_op2_error(
        &error_run("nofile"),
        "op_decl_set_hdf5",
        Some("set \"nodes\""),
        "file \"missing.h5\" does not exist",
    );
    assert_op2_error(
        &error_run("notfile"),
        "op_decl_set_hdf5",
        Some("set \"nodes\""),
        "file \"text.h5\" is not an HDF5 file",
    );
    assert_op2_error(
        &error_run("nullmap"),
        "op_fetch_data_hdf5_file",
        None,
        "the dat is NULL",
    );
}

fn nm(args: &[&str], lib: &str) -> Vec<String> {
    let out = Command::new("nm")
        .args(args)
        .arg(lib_dir().join(lib))
        .output()
        .expect("nm");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(str::to_string))
        .collect()
}

const API: &[&str] = &[
    "op_decl_set_hdf5",
    "op_decl_set_hdf5_infer_size",
    "op_decl_map_hdf5",
    "op_decl_dat_hdf5",
    "op_get_const_hdf5",
    "op_write_const_hdf5",
    "op_dump_to_hdf5",
    "op_fetch_data_hdf5",
    "op_fetch_data_hdf5_file",
    "op_fetch_data_hdf5_file_path",
    "op_fetch_data_hdf5_file_ptr",
];

/// libop2_hdf5 defines OP2's HDF5 API and no OP2 core symbol (the OP2
/// library of the link line defines those once), needs no MPI, and its
/// shared library depends on the serial HDF5 only.
#[test]
fn library_symbols_and_dependencies() {
    let defined = nm(&["-g", "--defined-only"], "libop2_hdf5.a");
    for f in API {
        assert!(defined.iter().any(|s| s == f), "{f} not defined");
    }
    for core in ["op_decl_set", "op_decl_dat_char", "op_init", "OP_set_list"] {
        assert!(!defined.iter().any(|s| s == core), "{core} defined twice");
    }
    let undefined = nm(&["-u"], "libop2_hdf5.a");
    assert!(undefined.iter().any(|s| s == "op_fetch_data_char"));
    assert!(undefined.iter().any(|s| s == "H5Dread"));
    let mpi: Vec<_> = undefined
        .iter()
        .filter(|s| s.starts_with("MPI_") || s.starts_with("ompi_"))
        .collect();
    assert!(mpi.is_empty(), "MPI symbols needed: {mpi:?}");
    let out = Command::new("ldd")
        .arg(lib_dir().join("libop2_hdf5.so"))
        .output()
        .expect("ldd");
    let ldd = String::from_utf8_lossy(&out.stdout);
    assert!(
        ldd.contains("libhdf5_serial.so") || ldd.contains("libhdf5.so"),
        "{ldd}"
    );
    assert!(!ldd.contains("mpi"), "{ldd}");
}

const MESH: &str = "c-examples/common/naca_mesh.c";

fn example(name: &str, src: &str, hdf5: bool) -> PathBuf {
    let lang = if src.ends_with(".c") {
        Lang::C99
    } else {
        Lang::Cxx17
    };
    let p = Program::new(name, lang, &[src, MESH])
        .include("c-examples/common")
        .include("c-examples/airfoil");
    build_once(&if hdf5 { p.with_hdf5() } else { p })
}

/// The rms history lines (` <iter>  <rms> `) and the final q sums.
fn history(r: &Run) -> Vec<String> {
    r.ok();
    r.stdout
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with("q sums")
                || (t.split_whitespace().count() == 2
                    && t.split_whitespace().next().unwrap().parse::<u32>().is_ok())
        })
        .map(str::to_string)
        .collect()
}

/// mesh2hdf5 writes the airfoil mesh (from a new_grid.dat file and from the
/// built-in generator) in OP2's layout; airfoil_hdf5 reading it prints the
/// same rms history and final q as airfoil on the same mesh, and writes q.
#[test]
fn airfoil_hdf5_matches_airfoil() {
    let dir = scratch("hdf5-airfoil");
    let conv = example("h5_mesh2hdf5", "c-examples/hdf5/mesh2hdf5.cpp", true);
    let air5 = example("h5_airfoil_hdf5", "c-examples/hdf5/airfoil_hdf5.cpp", true);
    let air = example("h5_airfoil", "c-examples/airfoil/airfoil.cpp", false);
    let gen = example("h5_meshgen", "c-examples/meshgen/meshgen.c", false);
    run_in(&gen, &["--cells", "2500", "-o", "grid.dat"], &dir, &[]).ok();
    run_in(&conv, &["grid.dat", "-o", "grid.h5"], &dir, &[]).ok();
    run_in(&conv, &["--cells=3000", "-o", "gen.h5"], &dir, &[]).ok();
    for (h5, dat_args) in [
        ("grid.h5", vec!["grid.dat"]),
        ("gen.h5", vec!["--cells=3000"]),
    ] {
        let mut a = dat_args.clone();
        a.push("--iters=200");
        let want = history(&run_in(&air, &a, &dir, &[]));
        let out = format!("--out=q_{h5}");
        let got = history(&run_in(&air5, &[h5, "--iters=200", &out], &dir, &[]));
        assert_eq!(want.len(), 3, "{want:?}");
        assert_eq!(got, want, "{h5}");
    }
    let f = h5dump(&dir, &["-H", "q_gen.h5"]);
    assert!(f.contains("DATASET \"p_q\""), "{f}");
}
