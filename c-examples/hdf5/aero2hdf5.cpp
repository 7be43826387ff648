// aero2hdf5 -- turn an aero mesh in the FE_grid.dat text format (written by
// c-examples/meshgen/aero_meshgen) into the OP2-layout HDF5 file that OP2's
// aero_hdf5 reads: sets nodes/bedges/cells, maps pbedge (bedges -> nodes, 1)
// and pcell (cells -> nodes, 4), and the "double" dats p_x (coordinates),
// p_phim (the free-stream potential minf * x), p_resm, p_K (16 per cell),
// p_V, p_P, p_U (zero: aero computes them before using them).
//
//   aero2hdf5 [MESHFILE] [-o FILE]      (defaults: FE_grid.dat, FE_grid.h5)
//
// Written through OP2's own HDF5 API (op_dump_to_hdf5).
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "op_hdf5.h"
#include "op_seq.h"

static const double MINF = 0.1; // aero's free-stream Mach number

static void fail(const char *file, const char *what) {
  fprintf(stderr, "aero2hdf5: %s: %s\n", file, what);
  exit(1);
}

int main(int argc, char **argv) {
  const char *in = "FE_grid.dat", *out = "FE_grid.h5";
  for (int i = 1; i < argc; ++i) {
    if ((argv[i][0] == '-' && argv[i][1] == 'o' && argv[i][2] == 0) && i + 1 < argc)
      out = argv[++i];
    else if (argv[i][0] != '-')
      in = argv[i];
    else {
      fprintf(stderr, "usage: %s [MESHFILE] [-o FILE]\n", argv[0]);
      return 2;
    }
  }
  FILE *f = fopen(in, "r");
  if (f == nullptr)
    fail(in, "cannot open");
  int nnode, ncell, nbnode;
  if (fscanf(f, "%d %d %d", &nnode, &ncell, &nbnode) != 3 || nnode <= 0 || ncell <= 0 || nbnode < 0)
    fail(in, "bad header (nnode ncell nbnode)");
  std::vector<double> x(2 * (size_t)nnode);
  std::vector<int> cell(4 * (size_t)ncell), bnode((size_t)nbnode);
  for (int n = 0; n < nnode; ++n)
    if (fscanf(f, "%lf %lf", &x[2 * n], &x[2 * n + 1]) != 2)
      fail(in, "bad node line");
  for (int c = 0; c < ncell; ++c)
    if (fscanf(f, "%d %d %d %d", &cell[4 * c], &cell[4 * c + 1], &cell[4 * c + 2], &cell[4 * c + 3]) != 4)
      fail(in, "bad cell line");
  for (int b = 0; b < nbnode; ++b)
    if (fscanf(f, "%d", &bnode[b]) != 1)
      fail(in, "bad boundary node line");
  fclose(f);

  std::vector<double> phim((size_t)nnode), zero((size_t)nnode, 0.0), k(16 * (size_t)ncell, 0.0);
  for (int n = 0; n < nnode; ++n)
    phim[n] = MINF * x[2 * n];

  op_init(0, nullptr, 0);
  op_set nodes = op_decl_set(nnode, "nodes");
  op_set bnodes = op_decl_set(nbnode, "bedges");
  op_set cells = op_decl_set(ncell, "cells");
  op_decl_map(bnodes, nodes, 1, bnode.data(), "pbedge");
  op_decl_map(cells, nodes, 4, cell.data(), "pcell");
  op_decl_dat(nodes, 2, "double", x.data(), "p_x");
  op_decl_dat(nodes, 1, "double", phim.data(), "p_phim");
  op_decl_dat(nodes, 1, "double", zero.data(), "p_resm");
  op_decl_dat(cells, 16, "double", k.data(), "p_K");
  op_decl_dat(nodes, 1, "double", zero.data(), "p_V");
  op_decl_dat(nodes, 1, "double", zero.data(), "p_P");
  op_decl_dat(nodes, 1, "double", zero.data(), "p_U");
  op_dump_to_hdf5(out);
  printf("wrote %s: nodes %d, cells %d, boundary nodes %d\n", out, nnode, ncell, nbnode);
  op_exit();
  return 0;
}
