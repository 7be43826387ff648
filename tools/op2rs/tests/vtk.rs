//! `op2rs vtk` and `op2rs partition`: the VTK text and the errors.

mod common;
use common::*;

fn read(p: &std::path::Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn vtk_quads_with_cell_and_point_data() {
    let (d, p) = mesh(Opts::default());
    let out = d.path().join("m.vtk");
    let o = op2rs(&[
        "vtk",
        s(&p),
        "--cells",
        "pcell",
        "--coords",
        "x",
        "--dats",
        "q,flag,area",
        "-o",
        s(&out),
    ]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("20 points (set 'nodes'), 12 quad cells (set 'cells'), data: q (cells), flag (points), area (cells)"), "{}", o.stdout);
    let t = read(&out);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], "# vtk DataFile Version 3.0");
    assert_eq!(lines[2], "ASCII");
    assert_eq!(lines[3], "DATASET UNSTRUCTURED_GRID");
    assert_eq!(lines[4], "POINTS 20 double");
    assert_eq!(lines[5], "0 0 0");
    assert_eq!(lines[5 + 5], "0 5e-1 0");
    let c = lines.iter().position(|l| l.starts_with("CELLS")).unwrap();
    assert_eq!(lines[c], "CELLS 12 60");
    assert_eq!(lines[c + 1], "4 0 1 6 5");
    assert_eq!(lines[c + 13], "CELL_TYPES 12");
    assert!(lines[c + 14..c + 26].iter().all(|l| *l == "9"));
    assert_eq!(lines[c + 26], "CELL_DATA 12");
    assert_eq!(lines[c + 27], "FIELD FieldData 2");
    assert_eq!(lines[c + 28], "q 4 12 double");
    assert_eq!(lines[c + 29], "0 0 0 2.5e-1");
    assert_eq!(lines[c + 30], "1 10 -1 1.25e0");
    assert_eq!(lines[c + 40], "11 110 -11 1.125e1");
    assert_eq!(lines[c + 41], "area 1 12 float");
    assert_eq!(lines[c + 42], "5e-1");
    assert_eq!(lines[c + 43], "6e-1");
    assert_eq!(lines[c + 54], "POINT_DATA 20");
    assert_eq!(lines[c + 55], "FIELD FieldData 1");
    assert_eq!(lines[c + 56], "flag 1 20 int");
    assert_eq!(lines[c + 59], "2");
    assert_eq!(lines.len(), c + 77);
}

#[test]
fn vtk_lines_and_cell_type_override() {
    let (d, p) = mesh(Opts::default());
    let out = d.path().join("b.vtk");
    let o = op2rs(&[
        "vtk",
        s(&p),
        "--cells",
        "pbedge",
        "--coords",
        "x",
        "--dats",
        "bound",
        "-o",
        s(&out),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let t = read(&out);
    assert!(t.contains("CELLS 14 42\n2 0 1\n"), "{t}");
    assert!(t.contains("CELL_TYPES 14\n3\n"), "{t}");
    assert!(
        t.contains("CELL_DATA 14\nFIELD FieldData 1\nbound 1 14 int\n1\n2\n"),
        "{t}"
    );
    let o = op2rs(&[
        "vtk",
        s(&p),
        "--cells",
        "pcell",
        "--coords",
        "x",
        "--cell-type",
        "tetra",
        "-o",
        s(&out),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(read(&out).contains("CELL_TYPES 12\n10\n"));
    let o = op2rs(&[
        "vtk",
        s(&p),
        "--cells",
        "pcell",
        "--coords",
        "x",
        "--cell-type",
        "triangle",
        "-o",
        s(&out),
    ]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains(
            "op2rs vtk: --cell-type triangle needs 3 points per cell, map 'pcell' has dim 4"
        ),
        "{}",
        o.stderr
    );
    let o = op2rs(&[
        "vtk",
        s(&p),
        "--cells",
        "pcell",
        "--coords",
        "x",
        "--cell-type",
        "blob",
        "-o",
        s(&out),
    ]);
    assert!(
        o.stderr
            .contains("op2rs vtk: --cell-type 'blob' is not one of vertex, line"),
        "{}",
        o.stderr
    );
}

#[test]
fn vtk_dat_on_wrong_set() {
    let (d, p) = mesh(Opts::default());
    let out = d.path().join("m.vtk");
    let o = op2rs(&[
        "vtk",
        s(&p),
        "--cells",
        "pcell",
        "--coords",
        "x",
        "--dats",
        "q,bound",
        "-o",
        s(&out),
    ]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr.trim_end(),
        "op2rs vtk: --dats: dat 'bound' is on set 'bedges' (14 rows), not on the cells' set 'cells' (12 elements, --cells pcell) or the points' set 'nodes' (20 elements, --coords x)"
    );
    assert!(!out.exists());
}

#[test]
fn vtk_map_out_of_range() {
    let (d, p) = mesh(Opts {
        bad_map: true,
        ..Opts::default()
    });
    let out = d.path().join("m.vtk");
    let o = op2rs(&[
        "vtk",
        s(&p),
        "--cells",
        "pcell",
        "--coords",
        "x",
        "-o",
        s(&out),
    ]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr.trim_end(),
        "op2rs vtk: map 'pcell': entry 1 of element 4 is 9999, outside set 'nodes' (size 20) (the points of --coords x)"
    );
}

#[test]
fn vtk_bad_names() {
    let (d, p) = mesh(Opts::default());
    let out = d.path().join("m.vtk");
    let vtk = |args: &str| run_line(&format!("vtk {{m}} {args} -o {{o}}"), &p, &out);
    let o = vtk("--cells q --coords x");
    fails_with(&o, "op2rs vtk: --cells 'q' is a dat, not a map");
    let o = vtk("--cells pnope --coords x");
    fails_with(&o, "op2rs vtk: --cells: map 'pnope' not found in file");
    fails_with(&o, "(maps: pbecell, pbedge, pcell)");
    let o = vtk("--cells pcell --coords q");
    fails_with(
        &o,
        "op2rs vtk: --coords: dat 'q' has dim 4, coordinates need dim 2 or 3",
    );
    let o = vtk("--cells pcell --coords pcell");
    fails_with(&o, "op2rs vtk: --coords 'pcell' is a map, not a dat");
    let o = vtk("--cells pbecell --coords x");
    fails_with(&o, "op2rs vtk: --cells: map 'pbecell' points into set 'cells' (inferred from its entries), the coordinates 'x' are on set 'nodes' (if the map does point into 'nodes', say so with --set pbecell=:nodes)");
    let o = vtk("--cells pcell --coords x --dats q --set q=nodes");
    fails_with(
        &o,
        "op2rs vtk: --dats: dat 'q' has 12 rows, its set 'nodes' has 20 elements",
    );
    let vtp = d.path().join("m.vtp");
    let o = run_line("vtk {m} --cells pcell --coords x -o {o}", &p, &vtp);
    fails_with(
        &o,
        "m.vtp': op2rs writes an unstructured grid, legacy (.vtk) or XML (.vtu), not .vtp",
    );
    assert!(o.stderr.starts_with("op2rs vtk: -o '"), "{}", o.stderr);
    let missing = d.path().join("none.h5");
    let o = run_line("vtk {m} --cells pcell --coords x -o {o}", &missing, &out);
    fails_with(&o, "none.h5' does not exist");
    assert!(o.stderr.starts_with("op2rs vtk: file '"), "{}", o.stderr);
    let nodir = d.path().join("no/dir/m.vtk");
    let o = run_line("vtk {m} --cells pcell --coords x -o {o}", &p, &nodir);
    fails_with(&o, "dir/m.vtk': No such file or directory");
    assert!(
        o.stderr.starts_with("op2rs vtk: cannot write '"),
        "{}",
        o.stderr
    );
}

#[test]
fn partition_rcb_two_ranks() {
    let (d, p) = mesh(Opts::default());
    let out = d.path().join("p.vtk");
    let o = op2rs(&[
        "partition",
        s(&p),
        "--ranks",
        "2",
        "--cells",
        "pcell",
        "--coords",
        "x",
        "-o",
        s(&out),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let t = &o.stdout;
    assert!(
        t.contains("partition of set 'cells' (12 cells, map 'pcell') into 2 ranks by rcb"),
        "{t}"
    );
    assert!(t.contains("   0      6     3\n   1      6     3\n"), "{t}");
    assert!(t.contains("imbalance 1.0000"), "{t}");
    assert!(
        t.contains("edge cut 3 (of 17 pairs of cells sharing at least 2 point(s))"),
        "{t}"
    );
    let v = read(&out);
    let want: String = (0..NCELL)
        .map(|c| if c % NX < 2 { "0\n" } else { "1\n" })
        .collect();
    assert!(
        v.contains(&format!(
            "CELL_DATA 12\nFIELD FieldData 1\nrank 1 12 int\n{want}"
        )),
        "{v}"
    );
}

#[test]
fn partition_other_partitioners_and_errors() {
    let (d, p) = mesh(Opts::default());
    let out = d.path().join("p.vtk");
    let part = |args: &str| {
        let line = format!("partition {{m}} --cells pcell --coords x {args} -o {{o}}");
        run_line(&line, &p, &out)
    };
    for name in ["inertial", "block", "random"] {
        let o = part(&format!("--ranks 3 --partitioner {name} --dats q"));
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        assert!(
            o.stdout.contains("imbalance 1.0000"),
            "{name}: {}",
            o.stdout
        );
        let v = read(&out);
        assert!(v.contains("FIELD FieldData 2\nq 4 12 double"), "{name}");
    }
    // METIS k-way on the 4 x 3 quads: two halves of 6, cut by a line of
    // 3 or 4 faces, and the same answer on a rerun
    let o = part("--ranks 2 --partitioner kway");
    assert_eq!(o.code, 0, "kway: {}", o.stderr);
    assert!(o.stdout.contains("imbalance 1.0000"), "{}", o.stdout);
    let cut: usize = o
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("edge cut "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no edge cut line: {}", o.stdout));
    assert!((3..=4).contains(&cut), "{}", o.stdout);
    let first = read(&out);
    assert_eq!(part("--ranks 2 --partitioner kway").code, 0);
    assert_eq!(first, read(&out), "deterministic");
    let o = part("--ranks 3 --partitioner metis");
    fails_with(
        &o,
        "op2rs partition: --partitioner 'metis' is not one of kway, rcb, inertial, block, random",
    );
    let o = part("--ranks 0");
    fails_with(
        &o,
        "op2rs partition: --ranks must be between 1 and 1048576, not 0",
    );
    let o = part("--ranks 2 --dats bound");
    fails_with(
        &o,
        "op2rs partition: --dats: dat 'bound' is on set 'bedges'",
    );
    let o = part("--ranks 40");
    assert_eq!(o.code, 0, "more ranks than cells: {}", o.stderr);
    assert!(o.stdout.contains("imbalance 3.3333"), "{}", o.stdout);
}

#[test]
fn vtk_with_twin_sets() {
    let (d, p) = mesh(Opts {
        twin: true,
        ..Opts::default()
    });
    let out = d.path().join("t.vtk");
    let line = "vtk {m} --cells pcell --coords x --dats results/p,flag -o {o}";
    let o = run_line(line, &p, &out);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v = read(&out);
    assert!(
        v.contains("CELL_DATA 12\nFIELD FieldData 1\nresults/p 1 12 double\n0\n1\n"),
        "{v}"
    );
    assert!(
        v.contains("POINT_DATA 20\nFIELD FieldData 1\nflag 1 20 int\n"),
        "{v}"
    );
    let line = "vtk {m} --cells pcell --coords x --dats q --set pcell=faces,q=cells -o {o}";
    let o = run_line(line, &p, &out);
    fails_with(
        &o,
        "op2rs vtk: --dats: dat 'q' is on set 'cells' (12 rows), not on the cells' set 'faces'",
    );
}

#[test]
fn vtu_xml_grid() {
    let (d, p) = mesh(Opts::default());
    let out = d.path().join("m.vtu");
    let line = "vtk {m} --cells pcell --coords x --dats q,flag -o {o}";
    let o = run_line(line, &p, &out);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v = read(&out);
    assert!(
        v.starts_with("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\""),
        "{v}"
    );
    assert!(
        v.contains("<Piece NumberOfPoints=\"20\" NumberOfCells=\"12\">"),
        "{v}"
    );
    assert!(v.contains("<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n0 0 0\n1 0 0\n"), "{v}");
    assert!(
        v.contains("Name=\"connectivity\" format=\"ascii\">\n0 1 6 5\n1 2 7 6\n"),
        "{v}"
    );
    assert!(
        v.contains("Name=\"offsets\" format=\"ascii\">\n4\n8\n"),
        "{v}"
    );
    assert!(
        v.contains("Name=\"types\" format=\"ascii\">\n9\n9\n"),
        "{v}"
    );
    assert!(v.contains("<CellData>\n<DataArray type=\"Float64\" Name=\"q\" NumberOfComponents=\"4\" format=\"ascii\">\n0 0 0 2.5e-1\n"), "{v}");
    assert!(v.contains("<PointData>\n<DataArray type=\"Int32\" Name=\"flag\" NumberOfComponents=\"1\" format=\"ascii\">\n0\n1\n2\n0\n"), "{v}");
    assert!(
        v.ends_with("</PointData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n"),
        "{v}"
    );
    let out = d.path().join("p.vtu");
    let o = run_line(
        "partition {m} --ranks 2 --cells pcell --coords x -o {o}",
        &p,
        &out,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v = read(&out);
    assert!(v.contains("<CellData>\n<DataArray type=\"Int32\" Name=\"rank\" NumberOfComponents=\"1\" format=\"ascii\">\n0\n0\n1\n1\n"), "{v}");
}
