// airfoil.cpp -- 2D inviscid flow around a NACA 0012 section, written
// against the OP2 API (sets, maps, dats, op_par_loop).
//
// Finite-volume, cell-centred; explicit two-stage time marching with local
// time steps.  Each time step:
//   save_soln  (cells)   qold = q
//   twice:
//     adt_calc (cells)   local wave-speed sums, via cell -> node
//     res_calc (edges)   interior fluxes, via edge -> node, edge -> cell
//     bres_calc(bedges)  wall / far-field fluxes, via bedge -> node, -> cell
//     update   (cells)   q = qold - res/adt, accumulate rms (OP_INC)
// Every 100 steps the rms of the last stage's change is printed.
//
// Command line: see airfoil_setup.h (mesh file or built-in O-grid,
// --cells, --iters, --out, --diags, --shuffle, --renumber).  OP2 runtime arguments such as
// OP_PART_SIZE=... are passed through to op_init.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

// flow constants read by the kernels (declared to OP2 with op_decl_const)
double gam, gm1, cfl, eps, mach, alpha, qinf[4];

#include "op_seq.h"

#include "airfoil_setup.h"

#include "airfoil_step.h"

int main(int argc, char **argv) {
  AirfoilOptions opt = airfoil_parse_args(argc, argv);

  op_init(argc, argv, opt.diags);

  op_printf("%s grid \n", opt.mesh_file ? "reading in" : "generating");
  naca_mesh m;
  airfoil_get_mesh(opt, &m);
  op_printf(" nodes %d, cells %d, edges %d, boundary edges %d \n", m.nnode,
            m.ncell, m.nedge, m.nbedge);

  op_printf("initialising flow field \n");
  airfoil_set_constants();

  std::vector<double> q(4 * (size_t)m.ncell), qold(4 * (size_t)m.ncell, 0.0),
      res(4 * (size_t)m.ncell, 0.0), adt((size_t)m.ncell, 0.0);
  for (int c = 0; c < m.ncell; ++c)
    for (int k = 0; k < 4; ++k)
      q[4 * c + k] = qinf[k];

  // sets
  op_set nodes = op_decl_set(m.nnode, "nodes");
  op_set edges = op_decl_set(m.nedge, "edges");
  op_set bedges = op_decl_set(m.nbedge, "bedges");
  op_set cells = op_decl_set(m.ncell, "cells");

  // connectivity
  op_map pedge = op_decl_map(edges, nodes, 2, m.edge, "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, m.ecell, "pecell");
  op_map pbedge = op_decl_map(bedges, nodes, 2, m.bedge, "pbedge");
  op_map pbecell = op_decl_map(bedges, cells, 1, m.becell, "pbecell");
  op_map pcell = op_decl_map(cells, nodes, 4, m.cell, "pcell");

  // data
  op_dat p_bound = op_decl_dat(bedges, 1, "int", m.bound, "p_bound");
  op_dat p_x = op_decl_dat(nodes, 2, "double", m.x, "p_x");
  op_dat p_q = op_decl_dat(cells, 4, "double", q.data(), "p_q");
  op_dat p_qold = op_decl_dat(cells, 4, "double", qold.data(), "p_qold");
  op_dat p_adt = op_decl_dat(cells, 1, "double", adt.data(), "p_adt");
  op_dat p_res = op_decl_dat(cells, 4, "double", res.data(), "p_res");

  op_decl_const(1, "double", &gam);
  op_decl_const(1, "double", &gm1);
  op_decl_const(1, "double", &cfl);
  op_decl_const(1, "double", &eps);
  op_decl_const(1, "double", &mach);
  op_decl_const(1, "double", &alpha);
  op_decl_const(4, "double", qinf);

  // reorder cells (and through the maps edges, boundary edges and nodes)
  // for locality, as OP2's airfoil_hdf5 does with its renumber flag
  if (opt.renumber) {
    double c0, c1, w0, w1;
    op_timers(&c0, &w0);
    op_renumber(pecell);
    op_timers(&c1, &w1);
    op_printf(" op_renumber took %f s\n", w1 - w0);
  }

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

  // bring the final state back to the host and summarise it
  const int ncell = (int)op_get_size(cells);
  std::vector<double> qfinal(4 * (size_t)ncell);
  op_fetch_data(p_q, qfinal.data());
  double qsum[4] = {0.0, 0.0, 0.0, 0.0};
  for (int c = 0; c < ncell; ++c)
    for (int k = 0; k < 4; ++k)
      qsum[k] += qfinal[4 * c + k];
  op_printf(" q sums: %.15e %.15e %.15e %.15e \n", qsum[0], qsum[1], qsum[2],
            qsum[3]);

  if (opt.out_file != nullptr) {
    op_print_dat_to_binfile(p_q, opt.out_file);
    op_printf(" wrote final q to %s \n", opt.out_file);
  }

  op_timing_output();
  op_printf("Max total runtime = %f\n", wall_t2 - wall_t1);

  op_exit();
  // released only after op_exit: with the OP_NO_REALLOC runtime option OP2
  // adopts the user's dat arrays instead of copying them
  naca_mesh_free(&m);
  return 0;
}
