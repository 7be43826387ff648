// airfoil_hdf5_mpi.cpp -- airfoil_hdf5.cpp under MPI (libop2_mpi, OP2's
// HDF5 API in its MPI form): every rank reads its block of the mesh from the
// OP2-layout HDF5 file (collective MPI-IO), op_partition distributes it, the
// loops run as in airfoil.cpp, and the final q is written with
// op_fetch_data_hdf5_file in the original global order. Same rms history as
// airfoil on the same mesh.
//
//   mpirun -np N airfoil_hdf5_mpi [FILE.h5] [--iters=N] [--out=FILE.h5]
//
// Link: -lop2_mpi and the parallel HDF5 library
// (-L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

double gam, gm1, cfl, eps, mach, alpha, qinf[4];

#include "op_hdf5.h"
#include "op_lib_mpi.h"
#include "op_seq.h"

#include "airfoil_setup.h"

#include "airfoil_step.h"

int main(int argc, char **argv) {
  AirfoilOptions opt = airfoil_parse_args(argc, argv);
  const char *file = opt.mesh_file ? opt.mesh_file : "new_grid.h5";

  op_init(argc, argv, opt.diags);
  op_printf("reading in grid from %s \n", file);

  op_set nodes = op_decl_set_hdf5(file, "nodes");
  op_set edges = op_decl_set_hdf5(file, "edges");
  op_set bedges = op_decl_set_hdf5(file, "bedges");
  op_set cells = op_decl_set_hdf5(file, "cells");

  op_map pedge = op_decl_map_hdf5(edges, nodes, 2, file, "pedge");
  op_map pecell = op_decl_map_hdf5(edges, cells, 2, file, "pecell");
  op_map pbedge = op_decl_map_hdf5(bedges, nodes, 2, file, "pbedge");
  op_map pbecell = op_decl_map_hdf5(bedges, cells, 1, file, "pbecell");
  op_map pcell = op_decl_map_hdf5(cells, nodes, 4, file, "pcell");

  op_dat p_bound = op_decl_dat_hdf5(bedges, 1, "int", file, "p_bound");
  op_dat p_x = op_decl_dat_hdf5(nodes, 2, "double", file, "p_x");
  op_dat p_q = op_decl_dat_hdf5(cells, 4, "double", file, "p_q");
  op_dat p_qold = op_decl_dat_hdf5(cells, 4, "double", file, "p_qold");
  op_dat p_adt = op_decl_dat_hdf5(cells, 1, "double", file, "p_adt");
  op_dat p_res = op_decl_dat_hdf5(cells, 4, "double", file, "p_res");

  op_get_const_hdf5("gam", 1, "double", (char *)&gam, file);
  op_get_const_hdf5("gm1", 1, "double", (char *)&gm1, file);
  op_get_const_hdf5("cfl", 1, "double", (char *)&cfl, file);
  op_get_const_hdf5("eps", 1, "double", (char *)&eps, file);
  op_get_const_hdf5("mach", 1, "double", (char *)&mach, file);
  op_get_const_hdf5("alpha", 1, "double", (char *)&alpha, file);
  op_get_const_hdf5("qinf", 4, "double", (char *)qinf, file);
  op_printf(" nodes %d, cells %d, edges %d, boundary edges %d \n",
            (int)op_get_size(nodes), (int)op_get_size(cells),
            (int)op_get_size(edges), (int)op_get_size(bedges));

  // mesh blocks as read -> partitions (k-way on the cell graph)
  op_partition("PARMETIS", "KWAY", edges, pecell, p_x);

  op_decl_const(1, "double", &gam);
  op_decl_const(1, "double", &gm1);
  op_decl_const(1, "double", &cfl);
  op_decl_const(1, "double", &eps);
  op_decl_const(1, "double", &mach);
  op_decl_const(1, "double", &alpha);
  op_decl_const(4, "double", qinf);

  if (opt.diags > 1)
    op_diagnostic_output();

  double cpu_t1, cpu_t2, wall_t1, wall_t2;
  op_timers(&cpu_t1, &wall_t1);

  const AirfoilData a = {edges, bedges, cells,  pedge, pecell, pbedge, pbecell, pcell,
                         p_bound, p_x, p_q, p_qold, p_adt, p_res};
  double rms = 0.0;

  for (int iter = 1; iter <= opt.iters; ++iter) {
    rms = airfoil_step(a);
    rms = sqrt(rms / (double)op_get_size(cells));
    if (iter % 100 == 0)
      op_printf(" %d  %10.5e \n", iter, rms);
  }

  op_timers(&cpu_t2, &wall_t2);

  // the final state in the original global order, on every rank
  const int ncell = (int)op_get_size(cells);
  std::vector<double> qfinal(4 * (size_t)ncell);
  op_fetch_data_idx(p_q, qfinal.data(), 0, ncell - 1);
  double qsum[4] = {0.0, 0.0, 0.0, 0.0};
  for (int c = 0; c < ncell; ++c)
    for (int k = 0; k < 4; ++k)
      qsum[k] += qfinal[4 * c + k];
  op_printf(" q sums: %.15e %.15e %.15e %.15e \n", qsum[0], qsum[1], qsum[2],
            qsum[3]);

  if (opt.out_file != nullptr)
    op_fetch_data_hdf5_file(p_q, opt.out_file);

  op_timing_output();
  op_printf("Max total runtime = %f\n", wall_t2 - wall_t1);

  op_exit();
  return 0;
}
