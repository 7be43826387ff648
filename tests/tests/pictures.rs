//! Pictures of a running, unchanged program (tests/c/pictures.c, a 30 x 20
//! quad grid): `OP2_RS_PLAN_CSV=DIR` writes each loop's plan colouring as
//! `DIR/<loop>.csv` (`OP2_RS_PLAN_VTK=DIR`: as `DIR/<loop>.vtk` on the
//! program's coordinates), `OP2_RS_PARTITION_VTK=FILE.vtk` the partition
//! `op_partition` made as a legacy VTK grid with cell data `rank`, and
//! `OP_PROFILE_JSON_OUTPUT` alone the JSON profile at op_exit. The
//! files are read back here independently (plain text parsing) and checked
//! against the mesh the program declares; a path that cannot be written is
//! one line on stderr and the run finishes normally. Generated OpenMP code
//! (airfoil's stubs in tests/c/generated) shows the thread colours of full
//! plans; progress lines are checked on a pseudo terminal (`script`).

use op2_tests::{build_once, lib_dir, out_dir, root, run_in, Lang, Program, Run};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const NX: usize = 30;
const NY: usize = 20;
const NN: usize = (NX + 1) * (NY + 1);
const NC: usize = NX * NY;
const SUM_LINE: &str = "sum 2400";

fn program(lib: &str) -> PathBuf {
    build_once(&Program::new("pictures", Lang::C99, &["tests/c/pictures.c"]).lib(lib))
}

/// The nodes of cell `c` as the program declares them.
fn cell_nodes(c: usize) -> [usize; 4] {
    let (i, j) = (c % NX, c / NX);
    let a = j * (NX + 1) + i;
    [a, a + 1, a + NX + 2, a + NX + 1]
}

fn scratch(tag: &str) -> PathBuf {
    let d = out_dir().join("runs").join(format!("pictures-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ok(r: &Run) {
    assert_eq!(
        r.status,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        r.stdout,
        r.stderr
    );
    assert!(r.stdout.contains(SUM_LINE), "{}", r.stdout);
}

/// One CSV row: element, block, block colour, thread colour.
type Row = [i64; 4];

fn read_csv(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("element,block,block_colour,thread_colour")
    );
    lines
        .map(|l| {
            let v: Vec<i64> = l.split(',').map(|f| f.parse().unwrap()).collect();
            assert_eq!(v.len(), 4, "line {l}");
            [v[0], v[1], v[2], v[3]]
        })
        .collect()
}

/// Every cell once, blocks contiguous, and the colouring rule: no two
/// blocks of one colour (no two elements of one thread colour in a block)
/// increment the same node.
fn check_spread_colouring(rows: &[Row]) {
    assert_eq!(rows.len(), NC);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r[0], i as i64, "elements in order, each once");
        assert!(r[1] >= 0 && r[2] >= 0, "every element in a block: {r:?}");
    }
    assert!(
        rows.windows(2).all(|w| w[1][1] >= w[0][1]),
        "blocks contiguous"
    );
    let mut block_colour = BTreeMap::new();
    let mut node_users: BTreeMap<(i64, usize), i64> = BTreeMap::new();
    let mut thread_users: BTreeMap<(i64, i64, usize), usize> = BTreeMap::new();
    for (c, r) in rows.iter().enumerate() {
        assert_eq!(*block_colour.entry(r[1]).or_insert(r[2]), r[2]);
        for n in cell_nodes(c) {
            let other = *node_users.entry((r[2], n)).or_insert(r[1]);
            assert_eq!(
                other, r[1],
                "blocks {other} and {} share colour {} and node {n}",
                r[1], r[2]
            );
            if r[3] >= 0 {
                let first = *thread_users.entry((r[1], r[3], n)).or_insert(c);
                assert_eq!(
                    first, c,
                    "cells {first} and {c} of block {} share thread colour and node {n}",
                    r[1]
                );
            }
        }
    }
    assert!(block_colour.len() > 1, "several blocks");
}

#[test]
fn plan_colourings_are_complete_consistent_and_stable() {
    let exe = program("op2_openmp");
    let mut files = Vec::new();
    for (tag, threads) in [("plan-1", "1"), ("plan-2", "2"), ("plan-2-again", "2")] {
        let dir = scratch(tag);
        let r = run_in(
            &exe,
            &["cells", "OP_PART_SIZE=32"],
            &dir,
            &[("OP2_RS_PLAN_CSV", "."), ("OMP_NUM_THREADS", threads)],
        );
        ok(&r);
        let rows = read_csv(&dir.join("spread.csv"));
        check_spread_colouring(&rows);
        files.push(std::fs::read(dir.join("spread.csv")).unwrap());
    }
    assert!(files[0] == files[1], "the thread count changed the plan");
    assert!(files[1] == files[2], "a rerun changed the plan");
}

/// Generated OpenMP code (tests/c/generated: airfoil's stubs, which call
/// `op_plan_get_stage_upload`) builds full plans: every element of
/// res_calc (edges) has a thread colour, below its block's count, and the
/// file is the same for 2 and 3 threads.
#[test]
fn generated_code_plans_carry_thread_colours() {
    let exe = build_once(
        &Program::new(
            "pictures_gen_airfoil_openmp",
            Lang::Cxx17,
            &[
                "tests/c/generated/airfoil_gen_main.cpp",
                "tests/c/generated/airfoil_openmp_kernels.cpp",
                "c-examples/common/naca_mesh.c",
            ],
        )
        .include("c-examples/common")
        .include("c-examples/airfoil")
        .lib("op2_openmp")
        .flag("-fopenmp"),
    );
    let mut files = Vec::new();
    for threads in ["2", "3"] {
        let dir = scratch(&format!("gen-{threads}"));
        let r = run_in(
            &exe,
            &["--cells=3000", "--iters=2", "--out=q.bin"],
            &dir,
            &[("OP2_RS_PLAN_CSV", "."), ("OMP_NUM_THREADS", threads)],
        );
        assert_eq!(r.status, Some(0), "{}{}", r.stdout, r.stderr);
        let rows = read_csv(&dir.join("res_calc.csv"));
        assert!(rows.len() > 3000, "every edge: {}", rows.len());
        let mut colours: BTreeMap<i64, i64> = BTreeMap::new();
        for (e, r) in rows.iter().enumerate() {
            assert_eq!(r[0], e as i64);
            assert!(r[1] >= 0 && r[2] >= 0 && r[3] >= 0, "{r:?}");
            let top = colours.entry(r[1]).or_insert(0);
            *top = (*top).max(r[3]);
        }
        assert!(colours.values().any(|&c| c > 0), "several thread colours");
        files.push(std::fs::read(dir.join("res_calc.csv")).unwrap());
    }
    assert!(files[0] == files[1], "the thread count changed the plan");
}

/// What a legacy ASCII VTK unstructured grid holds.
struct Vtk {
    points: Vec<[f64; 3]>,
    cells: Vec<Vec<usize>>,
    types: Vec<u8>,
    /// The integer cell data arrays by name.
    fields: BTreeMap<String, Vec<i32>>,
}

impl Vtk {
    fn field(&self, name: &str) -> &[i32] {
        self.fields
            .get(name)
            .unwrap_or_else(|| panic!("no cell data {name}: {:?}", self.fields.keys()))
    }
}

fn read_vtk(path: &Path) -> Vtk {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# vtk DataFile Version 3.0");
    assert_eq!(lines[2], "ASCII");
    assert_eq!(lines[3], "DATASET UNSTRUCTURED_GRID");
    let at = |key: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no {key} in {}", path.display()))
    };
    let count =
        |i: usize| -> usize { lines[i].split_whitespace().nth(1).unwrap().parse().unwrap() };
    let nums = |l: &str| -> Vec<f64> { l.split_whitespace().map(|v| v.parse().unwrap()).collect() };
    let p = at("POINTS ");
    let points = lines[p + 1..p + 1 + count(p)]
        .iter()
        .map(|l| {
            let v = nums(l);
            [v[0], v[1], v[2]]
        })
        .collect();
    let c = at("CELLS ");
    let cells: Vec<Vec<usize>> = lines[c + 1..c + 1 + count(c)]
        .iter()
        .map(|l| {
            let v: Vec<usize> = nums(l).iter().map(|&x| x as usize).collect();
            assert_eq!(v[0], v.len() - 1, "cell line {l}");
            v[1..].to_vec()
        })
        .collect();
    let t = at("CELL_TYPES ");
    let types = lines[t + 1..t + 1 + count(t)]
        .iter()
        .map(|l| l.parse().unwrap())
        .collect();
    let d = at("CELL_DATA ");
    assert_eq!(count(d), cells.len());
    let nfields: usize = lines[d + 1]
        .strip_prefix("FIELD FieldData ")
        .unwrap_or_else(|| panic!("no FIELD line after CELL_DATA: {}", lines[d + 1]))
        .parse()
        .unwrap();
    let mut fields = BTreeMap::new();
    let mut at_line = d + 2;
    for _ in 0..nfields {
        let head: Vec<&str> = lines[at_line].split_whitespace().collect();
        assert_eq!(
            head[1..],
            ["1", &cells.len().to_string(), "int"],
            "{}",
            lines[at_line]
        );
        let values = lines[at_line + 1..at_line + 1 + cells.len()]
            .iter()
            .map(|l| l.parse().unwrap())
            .collect();
        fields.insert(head[0].to_string(), values);
        at_line += 1 + cells.len();
    }
    Vtk {
        points,
        cells,
        types,
        fields,
    }
}

/// The grid's nodes and (with `cells`) cells as the program declares them.
fn check_grid(v: &Vtk, cells: bool) {
    assert_eq!(v.points.len(), NN);
    for (n, p) in v.points.iter().enumerate() {
        assert_eq!(
            *p,
            [(n % (NX + 1)) as f64, 0.5 * (n / (NX + 1)) as f64, 0.0]
        );
    }
    if cells {
        assert_eq!(v.cells.len(), NC);
        for (c, row) in v.cells.iter().enumerate() {
            assert_eq!(row.as_slice(), cell_nodes(c).as_slice());
        }
        assert!(v.types.iter().all(|&t| t == 9), "quads");
    } else {
        assert_eq!(v.cells.len(), NN);
        assert!(v.cells.iter().enumerate().all(|(i, c)| c == &[i]));
        assert!(v.types.iter().all(|&t| t == 1), "vertices");
    }
}

#[test]
fn partition_picture_on_one_process() {
    for (lib, what) in [
        ("op2_seq", "cells"),
        ("op2_openmp", "points"),
        ("op2_seq", "search"),
    ] {
        let dir = scratch(&format!("part-{lib}-{what}"));
        let r = run_in(
            &program(lib),
            &[what],
            &dir,
            &[("OP2_RS_PARTITION_VTK", "part.vtk")],
        );
        ok(&r);
        let v = read_vtk(&dir.join("part.vtk"));
        check_grid(&v, what != "points");
        assert!(
            v.field("rank").iter().all(|&r| r == 0),
            "one process: rank 0"
        );
    }
}

#[test]
fn unwritable_paths_are_one_line_each_and_the_run_goes_on() {
    let dir = scratch("unwritable");
    let bad = "/nonexistent-op2rs/sub";
    let part = format!("{bad}/part.vtk");
    let r = run_in(
        &program("op2_openmp"),
        &["cells"],
        &dir,
        &[("OP2_RS_PARTITION_VTK", &part), ("OP2_RS_PLAN_CSV", bad)],
    );
    ok(&r);
    let lines: Vec<&str> = r.stderr.lines().collect();
    let part_lines: Vec<_> = lines
        .iter()
        .filter(|l| l.contains("OP2_RS_PARTITION_VTK"))
        .collect();
    assert_eq!(part_lines.len(), 1, "{}", r.stderr);
    assert!(part_lines[0].contains(&part), "{}", part_lines[0]);
    let plan_lines: Vec<_> = lines
        .iter()
        .filter(|l| l.contains("OP2_RS_PLAN_CSV"))
        .collect();
    assert_eq!(
        plan_lines.len(),
        1,
        "one line however many loops: {}",
        r.stderr
    );
    assert!(plan_lines[0].contains(bad), "{}", plan_lines[0]);
}

/// `OP2_RS_PLAN_VTK=DIR`: each loop's plan as a VTK grid on the program's
/// own coordinates (p_x, found without being named): spread (cells) as
/// quads of the declared nodes, scale (nodes) as vertices, the cell data
/// `block`, `block_colour`, `thread_colour` equal to the CSV's columns.
/// `OP2_RS_PLAN_COORDS` picks another dat; a name that is not declared is
/// one line per loop and the run goes on.
#[test]
fn plan_vtk_pictures_sit_on_the_mesh_and_match_the_csv() {
    let exe = program("op2_openmp");
    let dir = scratch("plan-vtk");
    let r = run_in(
        &exe,
        &["cells", "OP_PART_SIZE=32"],
        &dir,
        &[("OP2_RS_PLAN_CSV", "."), ("OP2_RS_PLAN_VTK", ".")],
    );
    ok(&r);
    for (lp, cells) in [("spread", true), ("scale", false)] {
        let v = read_vtk(&dir.join(format!("{lp}.vtk")));
        check_grid(&v, cells);
        let rows = read_csv(&dir.join(format!("{lp}.csv")));
        for (k, name) in ["block", "block_colour", "thread_colour"]
            .iter()
            .enumerate()
        {
            let want: Vec<i32> = rows.iter().map(|r| r[k + 1] as i32).collect();
            assert_eq!(v.field(name), want.as_slice(), "{lp}: {name}");
        }
    }
    let title = std::fs::read_to_string(dir.join("spread.vtk")).unwrap();
    assert!(
        title
            .lines()
            .nth(1)
            .unwrap()
            .contains("coordinates 'p_x', cells: map 'pcell'"),
        "{title}"
    );

    let dir = scratch("plan-vtk-coords");
    let r = run_in(
        &exe,
        &["cells"],
        &dir,
        &[("OP2_RS_PLAN_VTK", "."), ("OP2_RS_PLAN_COORDS", "p_w")],
    );
    ok(&r);
    let v = read_vtk(&dir.join("spread.vtk"));
    assert_eq!((v.points.len(), v.cells.len()), (NN, NC));
    let r = run_in(
        &exe,
        &["cells"],
        &dir,
        &[("OP2_RS_PLAN_VTK", "."), ("OP2_RS_PLAN_COORDS", "nope")],
    );
    ok(&r);
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("OP2_RS_PLAN_VTK"))
        .collect();
    assert_eq!(lines.len(), 2, "one line per loop: {}", r.stderr);
    assert!(
        lines[0].starts_with("op2-rs: OP2_RS_PLAN_VTK: loop spread: OP2_RS_PLAN_COORDS names dat 'nope', which is not declared; './spread.vtk' not written (the run goes on)"),
        "{}",
        lines[0]
    );
}

/// `OP_PROFILE_JSON_OUTPUT` alone: a program that never calls the profiler
/// gets the file at op_exit, its root named after the program, its loops
/// recorded (level 2 unless OP_PROFILE_LEVEL says otherwise).
#[test]
fn json_profile_at_exit_without_profiler_calls() {
    let exe = program("op2_seq");
    let dir = scratch("json-exit");
    let r = run_in(
        &exe,
        &["cells"],
        &dir,
        &[("OP_PROFILE_JSON_OUTPUT", "p.json")],
    );
    ok(&r);
    assert_eq!(
        r.stdout.matches("Writing timing JSON to: p.json").count(),
        1,
        "{}",
        r.stdout
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("p.json")).unwrap()).unwrap();
    let exe_name = exe.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(json["name"], exe_name.as_str());
    assert_eq!(json["num_ranks"], 1);
    assert!(json.get("rank_totals").is_none(), "{json}");
    let kernels: Vec<(String, u64)> = json["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == 1)
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["clock"]["n"].as_u64().unwrap(),
            )
        })
        .collect();
    let names: Vec<&str> = kernels
        .iter()
        .map(|k| k.0.split('/').next().unwrap())
        .collect();
    assert_eq!(names, ["spread", "scale"], "{json}");
    assert!(kernels.iter().all(|k| k.1 == 1), "{kernels:?}");
    let total = json["clock"]["total"].as_u64().unwrap();
    let in_loops: u64 = json["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["clock"]["total"].as_u64().unwrap())
        .sum();
    assert!(total > 0 && in_loops <= total, "{json}");

    let r = run_in(
        &exe,
        &["cells"],
        &dir,
        &[
            ("OP_PROFILE_JSON_OUTPUT", "p1.json"),
            ("OP_PROFILE_LEVEL", "1"),
        ],
    );
    ok(&r);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("p1.json")).unwrap()).unwrap();
    assert_eq!(
        json["children"].as_array().unwrap().len(),
        0,
        "level 1: {json}"
    );
    let r = run_in(
        &exe,
        &["cells"],
        &dir,
        &[("OP_PROFILE_JSON_OUTPUT", "/nonexistent-op2rs/p.json")],
    );
    ok(&r);
    assert!(
        r.stderr.contains(
            "OP2 warning in op_profile_output_json: cannot write \"/nonexistent-op2rs/p.json\""
        ),
        "{}",
        r.stderr
    );
}

/// Progress lines: shown on a terminal at `OP_diags >= 2` (a pseudo
/// terminal from util-linux's `script`), never on a pipe, never below 2.
#[test]
fn progress_lines_only_on_a_terminal_at_diags_two() {
    let exe = program("op2_seq");
    let piped = run_in(
        &exe,
        &["cells"],
        &scratch("progress-pipe"),
        &[("PICTURES_DIAGS", "2")],
    );
    ok(&piped);
    assert!(
        !piped.stderr.contains("op2-rs: partitioning"),
        "{}",
        piped.stderr
    );
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped the terminal half: no `script`");
        return;
    }
    let on_tty = |diags: &str, tag: &str| {
        let cmd = format!("'{}' cells", exe.display());
        let r = run_in(
            Path::new("script"),
            &["-qec", &cmd, "/dev/null"],
            &scratch(tag),
            &[("PICTURES_DIAGS", diags)],
        );
        assert_eq!(r.status, Some(0), "{}{}", r.stdout, r.stderr);
        r.stdout.replace('\r', "")
    };
    let text = on_tty("2", "progress-tty");
    let start = "op2-rs: partitioning cells (600 elements) ...";
    assert!(text.lines().any(|l| l == start), "{text}");
    let end = text
        .lines()
        .find(|l| l.starts_with(start) && l.ends_with(" s") && l.len() > start.len())
        .unwrap_or_else(|| panic!("no end line in {text}"));
    let secs = &end[start.len()..end.len() - 2].trim();
    assert!(secs.parse::<f64>().is_ok(), "elapsed time in {end}");
    assert!(!on_tty("1", "progress-tty-1").contains("op2-rs: partitioning"));
}

fn mpi_program() -> Option<PathBuf> {
    let archive = lib_dir().join("libop2_mpi.a");
    if !archive.exists() || Command::new("mpicc").arg("--version").output().is_err() {
        eprintln!("skipped: no libop2_mpi.a or no mpicc");
        return None;
    }
    let exe = out_dir().join("pictures-op2_mpi");
    let out = Command::new("mpicc")
        .args(["-std=c99", "-O2", "-Wall", "-DPICTURES_MPI"])
        .arg(format!("-I{}", root().join("include").display()))
        .arg(root().join("tests/c/pictures.c"))
        .arg(&archive)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .expect("run mpicc");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

#[test]
fn partition_picture_on_two_ranks() {
    let Some(exe) = mpi_program() else { return };
    for what in ["cells", "points", "search"] {
        let dir = scratch(&format!("mpi-{what}"));
        let out = Command::new("timeout")
            .args([
                "-k",
                "5",
                "120",
                "mpirun",
                "--allow-run-as-root",
                "--oversubscribe",
            ])
            .args(["--bind-to", "none", "-np", "2"])
            .arg(&exe)
            .arg(what)
            .current_dir(&dir)
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
            .env("OP2_RS_PARTITION_VTK", "part.vtk")
            .env("OP2_RS_PLAN_CSV", ".")
            .env("OP2_RS_PLAN_VTK", ".")
            .env("OP_PROFILE_JSON_OUTPUT", "p.json")
            .output()
            .expect("run mpirun");
        let r = Run {
            status: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        ok(&r);
        let v = read_vtk(&dir.join("part.vtk"));
        check_grid(&v, what != "points");
        let mut per_rank = [0usize; 2];
        for &k in v.field("rank") {
            assert!((0..2).contains(&k), "rank {k}");
            per_rank[k as usize] += 1;
        }
        let n = v.field("rank").len();
        // each rank's plan of its local cells (owned, then halo), element
        // numbers local: every cell is somebody's
        let local: Vec<usize> = (0..2)
            .map(|r| read_csv(&dir.join(format!("spread.rank{r}.csv"))).len())
            .collect();
        assert!(local.iter().sum::<usize>() >= NC, "{local:?}");
        // each rank's plan picture: its local cells on its local nodes
        for (r, &n) in local.iter().enumerate() {
            let v = read_vtk(&dir.join(format!("spread.rank{r}.vtk")));
            assert_eq!(v.cells.len(), n, "rank {r}");
            assert!(v.cells.iter().flatten().all(|&p| p < v.points.len()));
            assert!(
                v.points.len() < NN + NN / 2,
                "local nodes only: {}",
                v.points.len()
            );
        }
        // the root's JSON profile at op_exit: both ranks' totals per loop
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("p.json")).unwrap()).unwrap();
        assert_eq!(json["num_ranks"], 2);
        assert_eq!(
            json["rank_totals"].as_array().map(Vec::len),
            Some(2),
            "{json}"
        );
        let spread = json["children"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"].as_str().unwrap().starts_with("spread/"))
            .unwrap_or_else(|| panic!("no spread loop: {json}"));
        assert_eq!(spread["clock"]["n"], 2, "once per rank: {spread}");
        assert_eq!(spread["rank_totals"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            r.stdout.matches("Writing timing JSON").count(),
            1,
            "root only"
        );
        assert!(
            per_rank.iter().all(|&k| k * 3 > n),
            "both ranks hold a fair share: {per_rank:?}"
        );
    }
}
