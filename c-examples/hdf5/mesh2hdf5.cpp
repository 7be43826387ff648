// mesh2hdf5 -- write an airfoil mesh as an OP2-layout HDF5 file (what OP2's
// airfoil_hdf5 reads): sets nodes/edges/bedges/cells, maps pedge, pecell,
// pbedge, pbecell, pcell, dats p_bound, p_x, p_q, p_qold, p_adt, p_res and
// the flow constants gam, gm1, cfl, eps, mach, alpha, qinf.
//
//   mesh2hdf5 [MESHFILE | --cells=N | --ni=A --nj=B] [-o FILE]
//
// MESHFILE is our new_grid.dat text format; without it the built-in NACA 0012
// O-grid is generated (default 20000 cells). Output: new_grid.h5 (-o/--out).
// Written through OP2's own HDF5 API (op_dump_to_hdf5, op_write_const_hdf5).
#include <stdio.h>
#include <string.h>

#include <vector>

double gam, gm1, cfl, eps, mach, alpha, qinf[4];

#include "op_hdf5.h"
#include "op_seq.h"

#include "airfoil_setup.h"
#include "cli_options.h"

int main(int argc, char **argv) {
  const char *out = "new_grid.h5";
  AirfoilOptions opt;
  for (int i = 1; i < argc; ++i) {
    const char *v;
    if ((v = option_value(argc, argv, &i, "-o")) || (v = option_value(argc, argv, &i, "--out")))
      out = v;
    else if ((v = option_value(argc, argv, &i, "--cells")))
      opt.cells = parse_long(v, "cell count");
    else if ((v = option_value(argc, argv, &i, "--ni")))
      opt.ni = (int)parse_long(v, "ni");
    else if ((v = option_value(argc, argv, &i, "--nj")))
      opt.nj = (int)parse_long(v, "nj");
    else if (argv[i][0] != '-' && opt.mesh_file == nullptr)
      opt.mesh_file = argv[i];
    else {
      fprintf(stderr, "usage: %s [MESHFILE | --cells=N | --ni=A --nj=B] [-o FILE]\n", argv[0]);
      return 2;
    }
  }
  if ((opt.ni > 0) != (opt.nj > 0)) {
    fprintf(stderr, "--ni and --nj must be given together\n");
    return 2;
  }
  op_init(0, nullptr, 0);
  naca_mesh m;
  airfoil_get_mesh(opt, &m);
  airfoil_set_constants();

  std::vector<double> q(4 * (size_t)m.ncell), zero4(4 * (size_t)m.ncell, 0.0),
      zero1((size_t)m.ncell, 0.0);
  for (int c = 0; c < m.ncell; ++c)
    for (int k = 0; k < 4; ++k)
      q[4 * c + k] = qinf[k];

  op_set nodes = op_decl_set(m.nnode, "nodes");
  op_set edges = op_decl_set(m.nedge, "edges");
  op_set bedges = op_decl_set(m.nbedge, "bedges");
  op_set cells = op_decl_set(m.ncell, "cells");
  op_decl_map(edges, nodes, 2, m.edge, "pedge");
  op_decl_map(edges, cells, 2, m.ecell, "pecell");
  op_decl_map(bedges, nodes, 2, m.bedge, "pbedge");
  op_decl_map(bedges, cells, 1, m.becell, "pbecell");
  op_decl_map(cells, nodes, 4, m.cell, "pcell");
  op_decl_dat(bedges, 1, "int", m.bound, "p_bound");
  op_decl_dat(nodes, 2, "double", m.x, "p_x");
  op_decl_dat(cells, 4, "double", q.data(), "p_q");
  op_decl_dat(cells, 4, "double", zero4.data(), "p_qold");
  op_decl_dat(cells, 1, "double", zero1.data(), "p_adt");
  op_decl_dat(cells, 4, "double", zero4.data(), "p_res");

  op_dump_to_hdf5(out);
  op_write_const_hdf5("gam", 1, "double", (char *)&gam, out);
  op_write_const_hdf5("gm1", 1, "double", (char *)&gm1, out);
  op_write_const_hdf5("cfl", 1, "double", (char *)&cfl, out);
  op_write_const_hdf5("eps", 1, "double", (char *)&eps, out);
  op_write_const_hdf5("mach", 1, "double", (char *)&mach, out);
  op_write_const_hdf5("alpha", 1, "double", (char *)&alpha, out);
  op_write_const_hdf5("qinf", 4, "double", (char *)qinf, out);
  printf("wrote %s: nodes %d, cells %d, edges %d, boundary edges %d\n", out, m.nnode, m.ncell,
         m.nedge, m.nbedge);
  op_exit();
  naca_mesh_free(&m);
  return 0;
}
