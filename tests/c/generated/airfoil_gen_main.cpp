// airfoil_gen_main.cpp -- c-examples/airfoil/airfoil.cpp in the shape OP2's
// source-to-source translator gives an application: the op_par_loop calls
// are replaced by calls of per-loop host stubs op_par_loop_<name>(), which
// are declared here and defined in a separate "kernels" file:
//
//   airfoil_genseq_kernels.cpp  sequential stubs   (link -lop2_seq)
//   airfoil_openmp_kernels.cpp  OpenMP stubs       (-fopenmp, -lop2_openmp)
//
// The kernels themselves (c-examples/airfoil/*.h) are only included by the
// kernels file, as in translated code.  Output lines are those of
// c-examples' airfoil and airfoil_ref, plus, at the end, one line per
// execution plan the stubs obtained (" plan <i> <kernel> count <n>").
//
// Command line: as c-examples' airfoil (airfoil_setup.h): --cells=N,
// --iters=N, --out=FILE, --diags=N (passed to op_init), OP2 runtime options.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

// flow constants read by the kernels (the kernels file declares them extern)
double gam, gm1, cfl, eps, mach, alpha, qinf[4];

#include "op_lib_cpp.h"

// host stubs (what the translator declares in place of the kernel headers)
void op_par_loop_save_soln(char const *, op_set, op_arg, op_arg);
void op_par_loop_adt_calc(char const *, op_set, op_arg, op_arg, op_arg, op_arg,
                          op_arg, op_arg);
void op_par_loop_res_calc(char const *, op_set, op_arg, op_arg, op_arg, op_arg,
                          op_arg, op_arg, op_arg, op_arg);
void op_par_loop_bres_calc(char const *, op_set, op_arg, op_arg, op_arg,
                           op_arg, op_arg, op_arg);
void op_par_loop_update(char const *, op_set, op_arg, op_arg, op_arg, op_arg,
                        op_arg);

#include "airfoil_setup.h"

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

  op_set nodes = op_decl_set(m.nnode, "nodes");
  op_set edges = op_decl_set(m.nedge, "edges");
  op_set bedges = op_decl_set(m.nbedge, "bedges");
  op_set cells = op_decl_set(m.ncell, "cells");

  op_map pedge = op_decl_map(edges, nodes, 2, m.edge, "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, m.ecell, "pecell");
  op_map pbedge = op_decl_map(bedges, nodes, 2, m.bedge, "pbedge");
  op_map pbecell = op_decl_map(bedges, cells, 1, m.becell, "pbecell");
  op_map pcell = op_decl_map(cells, nodes, 4, m.cell, "pcell");

  op_dat p_bound = op_decl_dat(bedges, 1, "int", m.bound, "p_bound");
  op_dat p_x = op_decl_dat(nodes, 2, "double", m.x, "p_x");
  op_dat p_q = op_decl_dat(cells, 4, "double", q.data(), "p_q");
  op_dat p_qold = op_decl_dat(cells, 4, "double", qold.data(), "p_qold");
  op_dat p_adt = op_decl_dat(cells, 1, "double", adt.data(), "p_adt");
  op_dat p_res = op_decl_dat(cells, 4, "double", res.data(), "p_res");

  // the translator turns op_decl_const(dim, type, &var) into op_decl_const2
  op_decl_const2("gam", 1, "double", &gam);
  op_decl_const2("gm1", 1, "double", &gm1);
  op_decl_const2("cfl", 1, "double", &cfl);
  op_decl_const2("eps", 1, "double", &eps);
  op_decl_const2("mach", 1, "double", &mach);
  op_decl_const2("alpha", 1, "double", &alpha);
  op_decl_const2("qinf", 4, "double", qinf);

  if (opt.diags > 1)
    op_diagnostic_output();

  double cpu_t1, cpu_t2, wall_t1, wall_t2;
  op_timers(&cpu_t1, &wall_t1);

  double rms = 0.0;

  for (int iter = 1; iter <= opt.iters; ++iter) {
    op_par_loop_save_soln("save_soln", cells,
                          op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                          op_arg_dat(p_qold, -1, OP_ID, 4, "double", OP_WRITE));

    for (int stage = 0; stage < 2; ++stage) {
      op_par_loop_adt_calc("adt_calc", cells,
                           op_arg_dat(p_x, 0, pcell, 2, "double", OP_READ),
                           op_arg_dat(p_x, 1, pcell, 2, "double", OP_READ),
                           op_arg_dat(p_x, 2, pcell, 2, "double", OP_READ),
                           op_arg_dat(p_x, 3, pcell, 2, "double", OP_READ),
                           op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                           op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_WRITE));

      op_par_loop_res_calc("res_calc", edges,
                           op_arg_dat(p_x, 0, pedge, 2, "double", OP_READ),
                           op_arg_dat(p_x, 1, pedge, 2, "double", OP_READ),
                           op_arg_dat(p_q, 0, pecell, 4, "double", OP_READ),
                           op_arg_dat(p_q, 1, pecell, 4, "double", OP_READ),
                           op_arg_dat(p_adt, 0, pecell, 1, "double", OP_READ),
                           op_arg_dat(p_adt, 1, pecell, 1, "double", OP_READ),
                           op_arg_dat(p_res, 0, pecell, 4, "double", OP_INC),
                           op_arg_dat(p_res, 1, pecell, 4, "double", OP_INC));

      op_par_loop_bres_calc("bres_calc", bedges,
                            op_arg_dat(p_x, 0, pbedge, 2, "double", OP_READ),
                            op_arg_dat(p_x, 1, pbedge, 2, "double", OP_READ),
                            op_arg_dat(p_q, 0, pbecell, 4, "double", OP_READ),
                            op_arg_dat(p_adt, 0, pbecell, 1, "double", OP_READ),
                            op_arg_dat(p_res, 0, pbecell, 4, "double", OP_INC),
                            op_arg_dat(p_bound, -1, OP_ID, 1, "int", OP_READ));

      rms = 0.0;
      op_par_loop_update("update", cells,
                         op_arg_dat(p_qold, -1, OP_ID, 4, "double", OP_READ),
                         op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_WRITE),
                         op_arg_dat(p_res, -1, OP_ID, 4, "double", OP_RW),
                         op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_READ),
                         op_arg_gbl(&rms, 1, "double", OP_INC));
    }

    rms = sqrt(rms / (double)op_get_size(cells));
    if (iter % 100 == 0)
      op_printf(" %d  %10.5e \n", iter, rms);
  }

  op_timers(&cpu_t2, &wall_t2);

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

  // the execution plans the stubs asked for (OpenMP stubs only), with how
  // often each was handed out
  for (int i = 0; i < OP_plan_index; ++i)
    op_printf(" plan %d %s count %d \n", i, OP_plans[i].name,
              OP_plans[i].count);

  op_timing_output();
  op_printf("Max total runtime = %f\n", wall_t2 - wall_t1);

  op_exit();
  naca_mesh_free(&m);
  return 0;
}
