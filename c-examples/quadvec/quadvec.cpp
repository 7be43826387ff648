// quadvec.cpp -- a finite-element loop with vector arguments through OP2:
// quad_res reads the four corners' coordinates and values of each cell
// (op_arg_dat(..., -4, pcell, ...), kernel parameters double **) and adds
// to the four corners' residuals (OP_INC through the same map); node_update
// is a direct loop with a global reduction. Benchmark of op_seq.h's
// trampoline for vector arguments; quadvec_ref.cpp is the same computation
// as plain loops (same output with libop2_seq, bit for bit).
#include <sys/time.h>

// time step, declared to OP2 as a global constant
double dt;

#include "op_seq.h"

#include "node_update.h"
#include "quad_res.h"
#include "quadvec_setup.h"

static double wall_seconds() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return (double)tv.tv_sec + 1.0e-6 * (double)tv.tv_usec;
}

int main(int argc, char **argv) {
  quadvec_options opt = quadvec_parse_args(argc, argv);
  op_init(argc, argv, 0);
  quadvec_mesh m = quadvec_build(opt);
  op_printf(" quadvec: %d x %d cells, %d nodes, %d iterations \n", opt.nx, opt.ny, m.nnode,
            opt.iters);

  op_set nodes = op_decl_set(m.nnode, "nodes");
  op_set cells = op_decl_set(m.ncell, "cells");
  op_map pcell = op_decl_map(cells, nodes, 4, m.cell.data(), "pcell");
  op_dat p_x = op_decl_dat(nodes, 2, "double", m.x.data(), "p_x");
  op_dat p_f = op_decl_dat(nodes, 1, "double", m.f.data(), "p_f");
  op_dat p_u = op_decl_dat(nodes, 1, "double", (double *)nullptr, "p_u");
  op_dat p_r = op_decl_dat(nodes, 1, "double", (double *)nullptr, "p_r");
  dt = 0.2;
  op_decl_const(1, "double", &dt);

  const int every = opt.iters >= 10 ? opt.iters / 10 : 1;
  double t0 = wall_seconds();
  for (int iter = 1; iter <= opt.iters; ++iter) {
    op_par_loop(quad_res, "quad_res", cells, op_arg_dat(p_x, -4, pcell, 2, "double", OP_READ),
                op_arg_dat(p_u, -4, pcell, 1, "double", OP_READ),
                op_arg_dat(p_r, -4, pcell, 1, "double", OP_INC));
    double rms = 0.0;
    op_par_loop(node_update, "node_update", nodes, op_arg_dat(p_f, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_u, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(p_r, -1, OP_ID, 1, "double", OP_RW),
                op_arg_gbl(&rms, 1, "double", OP_INC));
    if (iter % every == 0)
      op_printf(" %d  %.17e \n", iter, sqrt(rms / m.nnode));
  }
  double t1 = wall_seconds();

  std::vector<double> u((size_t)m.nnode);
  op_fetch_data(p_u, u.data());
  double usum = 0.0;
  for (double v : u)
    usum += v;
  op_printf(" u sum: %.17e \n", usum);
  op_timing_output();
  op_printf("Max total runtime = %f\n", t1 - t0);
  op_exit();
  return 0;
}
