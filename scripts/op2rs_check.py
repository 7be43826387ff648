"""Independent read-back of the VTK files `op2rs` writes (run by
scripts/op2rs_check.sh inside its virtual environment).

Writes OP2-layout HDF5 meshes with h5py (sets: 1-element int datasets;
maps: [from][dim] int with size/dim/type attributes; dats: [set][dim] with
size = bytes per element, dim, type; constants: [dim] with dim/type), runs
`op2rs vtk` and `op2rs partition` on them (legacy .vtk and XML .vtu),
reads every VTK file back with meshio and checks points, cells and data against the arrays h5py reads from
the same HDF5 file. Exits 1 on any mismatch.

A second mode reads back what the library itself writes from a running
program (tests/c/pictures.c, a 30 x 20 quad grid with nodes at (i, j/2),
run by op2rs_check.sh with OP2_RS_PLAN_VTK, OP2_RS_PLAN_CSV and
OP2_RS_PARTITION_VTK): every VTK file opens in meshio with the program's
nodes and cells, and the plan's cell data equal the CSV's columns.

usage: python op2rs_check.py OP2RS_BINARY WORK_DIR
       python op2rs_check.py --pictures DIR
"""

import subprocess
import sys

import h5py
import meshio
import numpy as np

FAILURES = []


def check(ok, what):
    if ok:
        print(f"  ok    {what}")
    else:
        print(f"  FAIL  {what}")
        FAILURES.append(what)


# ---------------------------------------------------------------- writing


def attr_int(ds, name, value):
    ds.attrs.create(name, np.array([value], dtype=np.int32))


def attr_str(ds, name, text, length):
    ds.attrs.create(name, np.bytes_(text), dtype=h5py.string_dtype("ascii", length))


def w_set(f, name, size):
    f.create_dataset(name, data=np.array([size], dtype=np.int32))


def w_map(f, name, values, wide=False):
    ds = f.create_dataset(name, data=values.astype(np.int64 if wide else np.int32))
    attr_int(ds, "size", values.shape[0])
    attr_int(ds, "dim", values.shape[1])
    attr_str(ds, "type", "long long" if wide else "int", 10)


DTYPES = {"double": np.float64, "float": np.float32, "int": np.int32, "long long": np.int64}


def w_dat(f, name, values, type_str):
    values = values.astype(DTYPES[type_str]).reshape(values.shape[0], -1)
    ds = f.create_dataset(name, data=values)
    attr_int(ds, "size", values.shape[1] * values.dtype.itemsize)
    attr_int(ds, "dim", values.shape[1])
    attr_str(ds, "type", type_str, len(type_str))


def w_const(f, name, values, type_str):
    ds = f.create_dataset(name, data=np.asarray(values, dtype=DTYPES[type_str]))
    attr_int(ds, "dim", len(values))
    attr_str(ds, "type", type_str, len(type_str))


def quad_mesh(path, nx, ny, rng):
    node = lambda i, j: j * (nx + 1) + i
    pcell = np.array(
        [[node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)]
         for j in range(ny) for i in range(nx)])
    bedges = [[node(i, 0), node(i + 1, 0)] for i in range(nx)]
    bedges += [[node(nx, j), node(nx, j + 1)] for j in range(ny)]
    bedges += [[node(i + 1, ny), node(i, ny)] for i in range(nx)]
    bedges += [[node(0, j + 1), node(0, j)] for j in range(ny)]
    pbedge = np.array(bedges)
    nnode, ncell = (nx + 1) * (ny + 1), nx * ny
    x = np.array([[i + 0.3 * rng.random(), j * 0.7 + 0.2 * rng.random()]
                  for j in range(ny + 1) for i in range(nx + 1)])
    q = rng.normal(size=(ncell, 4)) * np.array([1.0, 1e-300, 1e300, 1.0 / 3.0])
    with h5py.File(path, "w") as f:
        w_set(f, "cells", ncell)
        w_set(f, "nodes", nnode)
        w_set(f, "bedges", len(pbedge))
        w_map(f, "pcell", pcell)
        w_map(f, "pbedge", pbedge)
        w_dat(f, "x", x, "double")
        w_dat(f, "q", q, "double")
        w_dat(f, "area", rng.random(ncell) * 0.1, "float")
        w_dat(f, "flag", rng.integers(-5, 5, nnode), "int")
        w_dat(f, "big", rng.integers(-(2**62), 2**62, (nnode, 2)), "long long")
        w_dat(f, "bound", np.arange(len(pbedge)) % 3 + 1, "int")
        w_const(f, "gam", [1.4], "double")


def hex_mesh(path, nx, ny, nz, rng):
    node = lambda i, j, k: (k * (ny + 1) + j) * (nx + 1) + i
    hexes = []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                lo = [node(i, j, k), node(i + 1, j, k), node(i + 1, j + 1, k), node(i, j + 1, k)]
                hi = [node(a, b, k + 1) for a, b in [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)]]
                hexes.append(lo + hi)
    nnode = (nx + 1) * (ny + 1) * (nz + 1)
    xyz = np.array([[i, j, k] for k in range(nz + 1) for j in range(ny + 1)
                    for i in range(nx + 1)], dtype=float) + 0.1 * rng.random((nnode, 3))
    tets = np.array([[node(0, 0, 0), node(1, 0, 0), node(0, 1, 0), node(0, 0, 1)],
                     [node(1, 1, 1), node(1, 0, 1), node(0, 1, 1), node(1, 1, 0)]])
    with h5py.File(path, "w") as f:
        w_set(f, "hexes", len(hexes))
        w_set(f, "tets", len(tets))
        w_set(f, "points", nnode)
        w_map(f, "phex", np.array(hexes), wide=True)
        w_map(f, "ptet", tets)
        w_dat(f, "xyz", xyz, "float")
        w_dat(f, "rho", rng.random(len(hexes)) + 1.0, "double")
        w_dat(f, "vel", rng.normal(size=(nnode, 3)), "float")
        w_dat(f, "tag", np.array([7, 9]), "int")


# ---------------------------------------------------------------- checking


def op2rs(binary, args, expect_ok=True):
    r = subprocess.run([binary] + args, capture_output=True, text=True)
    if expect_ok and r.returncode != 0:
        print(r.stdout + r.stderr)
    return r


def rows(a):
    a = np.asarray(a)
    return a.reshape(a.shape[0], -1)


def check_vtk(vtk, h5, cells, coords, cell_type, cell_dats=(), point_dats=()):
    try:
        m = meshio.read(vtk)
    except Exception as e:  # a file meshio cannot read is a failure
        check(False, f"{vtk}: meshio reads it ({type(e).__name__}: {e})")
        return None
    with h5py.File(h5, "r") as f:
        x = f[coords][()]
        conn = f[cells][()]
        pts = np.zeros((x.shape[0], 3), dtype=x.dtype)
        pts[:, : x.shape[1]] = x
        check(m.points.dtype == x.dtype and np.array_equal(m.points, pts),
              f"{vtk}: points = {coords} ({x.shape[0]} x {x.shape[1]}, {x.dtype})")
        check(len(m.cells) == 1 and m.cells[0].type == cell_type,
              f"{vtk}: one block of {cell_type} cells")
        check(np.array_equal(m.cells[0].data, conn), f"{vtk}: cells = {cells} {conn.shape}")
        for name in cell_dats:
            want, got = f[name][()], m.cell_data.get(name, [None])[0]
            check(got is not None and got.dtype == want.dtype
                  and np.array_equal(rows(got), rows(want)),
                  f"{vtk}: CELL_DATA {name} = dat {name} ({want.dtype})")
        for name in point_dats:
            want, got = f[name][()], m.point_data.get(name)
            check(got is not None and got.dtype == want.dtype
                  and np.array_equal(rows(got), rows(want)),
                  f"{vtk}: POINT_DATA {name} = dat {name} ({want.dtype})")
    return m


def block_parts(n, nparts):
    """OP2's block distribution: n // P per rank, one more for the first n % P."""
    sizes = [n // nparts + (1 if r < n % nparts else 0) for r in range(nparts)]
    return np.repeat(np.arange(nparts), sizes)


def check_partition(binary, h5, work, ranks, partitioner, ext):
    vtk = f"{work}/part_{partitioner}.{ext}"
    r = op2rs(binary, ["partition", h5, "--ranks", str(ranks), "--partitioner", partitioner,
                       "--cells", "pcell", "--coords", "x", "--dats", "q", "-o", vtk])
    check(r.returncode == 0, f"op2rs partition --partitioner {partitioner} runs")
    if r.returncode != 0:
        return
    m = check_vtk(vtk, h5, "pcell", "x", "quad", cell_dats=["q"])
    if m is None:
        return
    rank = np.asarray(m.cell_data["rank"][0]).reshape(-1)
    printed = [int(line.split()[1]) for line in r.stdout.splitlines()
               if line.strip() and line.split()[0].isdigit()]
    counts = np.bincount(rank, minlength=ranks)
    check(rank.min() >= 0 and rank.max() < ranks and list(counts) == printed,
          f"{vtk}: rank in [0, {ranks}), per-rank counts {[int(c) for c in counts]} as printed")
    if partitioner == "block":
        check(np.array_equal(rank, block_parts(len(rank), ranks)),
              f"{vtk}: rank = OP2's block distribution")


def pictures_grid(nx=30, ny=20):
    """The nodes and cells tests/c/pictures.c declares."""
    nodes = np.array([[i % (nx + 1), 0.5 * (i // (nx + 1)), 0.0]
                      for i in range((nx + 1) * (ny + 1))])
    cells = []
    for c in range(nx * ny):
        a = (c // nx) * (nx + 1) + c % nx
        cells.append([a, a + 1, a + nx + 2, a + nx + 1])
    return nodes, np.array(cells)


def check_pictures(d):
    nodes, quads = pictures_grid()
    print("library pictures (tests/c/pictures.c)")
    for loop, kind, conn in (("spread", "quad", quads),
                             ("scale", "vertex", np.arange(len(nodes)).reshape(-1, 1))):
        m = meshio.read(f"{d}/{loop}.vtk")
        check(np.array_equal(m.points, nodes), f"{loop}.vtk: points are the program's nodes")
        check(len(m.cells) == 1 and m.cells[0].type == kind, f"{loop}.vtk: {kind} cells")
        check(np.array_equal(m.cells[0].data, conn), f"{loop}.vtk: connectivity as declared")
        csv = np.loadtxt(f"{d}/{loop}.csv", delimiter=",", skiprows=1, dtype=np.int64)
        check(np.array_equal(csv[:, 0], np.arange(len(conn))), f"{loop}.csv: every element once")
        for k, name in enumerate(("block", "block_colour", "thread_colour")):
            got = m.cell_data[name][0]
            check(np.array_equal(got, csv[:, k + 1]), f"{loop}.vtk: {name} as in {loop}.csv")
    m = meshio.read(f"{d}/part.vtk")
    check(np.array_equal(m.points, nodes) and np.array_equal(m.cells[0].data, quads),
          "part.vtk: the program's quads")
    check(np.all(m.cell_data["rank"][0] == 0), "part.vtk: one process, rank 0 everywhere")


def finish():
    if FAILURES:
        print(f"op2rs_check: {len(FAILURES)} mismatch(es):")
        for f in FAILURES:
            print(f"  {f}")
        sys.exit(1)


def main():
    if sys.argv[1] == "--pictures":
        check_pictures(sys.argv[2])
        finish()
        print("op2rs_check: the library's VTK files read back as the program declared")
        return
    binary, work = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(25)
    quad, hexa = f"{work}/quad.h5", f"{work}/hex.h5"
    quad_mesh(quad, 7, 5, rng)
    hex_mesh(hexa, 3, 2, 2, rng)

    print("op2rs info")
    for h5 in (quad, hexa):
        r = op2rs(binary, ["info", h5])
        check(r.returncode == 0 and "no problems found" in r.stdout, f"op2rs info {h5}")

    print("op2rs vtk")
    for ext in ("vtk", "vtu"):
        out = f"{work}/quad.{ext}"
        r = op2rs(binary, ["vtk", quad, "--cells", "pcell", "--coords", "x",
                           "--dats", "q,area,flag,big", "-o", out])
        check(r.returncode == 0, f"op2rs vtk quad mesh to .{ext} runs")
        check_vtk(out, quad, "pcell", "x", "quad", ["q", "area"], ["flag", "big"])
    out = f"{work}/bedge.vtk"
    r = op2rs(binary, ["vtk", quad, "--cells", "pbedge", "--coords", "x", "--dats", "bound,x", "-o", out])
    check(r.returncode == 0, "op2rs vtk boundary lines runs")
    check_vtk(out, quad, "pbedge", "x", "line", ["bound"], ["x"])
    for ext in ("vtk", "vtu"):
        out = f"{work}/hex.{ext}"
        r = op2rs(binary, ["vtk", hexa, "--cells", "phex", "--coords", "xyz",
                           "--dats", "rho,vel", "-o", out])
        check(r.returncode == 0, f"op2rs vtk hexahedra to .{ext} runs")
        check_vtk(out, hexa, "phex", "xyz", "hexahedron", ["rho"], ["vel"])
    out = f"{work}/tet.vtk"
    r = op2rs(binary, ["vtk", hexa, "--cells", "ptet", "--coords", "xyz", "--cell-type", "tetra",
                       "--dats", "tag", "-o", out])
    check(r.returncode == 0, "op2rs vtk --cell-type tetra runs")
    check_vtk(out, hexa, "ptet", "xyz", "tetra", ["tag"])
    r = op2rs(binary, ["vtk", quad, "--cells", "pcell", "--coords", "x", "--dats", "bound",
                       "-o", f"{work}/bad.vtk"], expect_ok=False)
    check(r.returncode != 0 and "dat 'bound' is on set 'bedges'" in r.stderr,
          "op2rs vtk refuses a dat on neither set")

    print("op2rs partition")
    for name in ("kway", "rcb", "inertial", "block", "random"):
        check_partition(binary, quad, work, 3, name, "vtk")
    check_partition(binary, quad, work, 4, "block", "vtu")

    finish()
    print("op2rs_check: every VTK file reads back as the HDF5 file holds")


if __name__ == "__main__":
    main()
