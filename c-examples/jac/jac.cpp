// jac.cpp -- weighted Jacobi iteration for a 2D Poisson problem on a
// structured grid, expressed through OP2 as an unstructured graph:
//   set nodes (unknowns), set edges (matrix non-zeros),
//   map ppedge: edges -> nodes (row, column),
//   dats A (edges), r, u, du (nodes).
// Per iteration:
//   res    (edges, indirect): du[row] += beta * A * u[col]   (OP_INC)
//   update (nodes, direct):   u += omega (r - du), du = 0,
//                             u_sum += u^2 (OP_INC), u_max = max|u| (OP_MAX)
// Problem details and options: jac_setup.h.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// relaxation factor, declared to OP2 as a global constant
double omega;

#include "op_seq.h"

#include "jac_setup.h"
#include "res.h"
#include "update.h"

int main(int argc, char **argv) {
  jac_options opt = jac_parse_args(argc, argv);
  op_init(argc, argv, opt.diags);

  jac_problem prob;
  if (jac_build(opt.n, &prob) != 0) {
    op_printf("out of memory\n");
    op_exit();
    return 1;
  }
  op_printf(" jacobi: %d x %d interior nodes, %d matrix entries, %d "
            "iterations \n",
            prob.n, prob.n, prob.nedge, opt.iters);

  op_set nodes = op_decl_set(prob.nnode, "nodes");
  op_set edges = op_decl_set(prob.nedge, "edges");
  op_map ppedge = op_decl_map(edges, nodes, 2, prob.pp, "ppedge");
  op_dat p_A = op_decl_dat(edges, 1, "double", prob.A, "p_A");
  op_dat p_r = op_decl_dat(nodes, 1, "double", prob.r, "p_r");
  op_dat p_u = op_decl_dat(nodes, 1, "double", prob.u, "p_u");
  op_dat p_du = op_decl_dat(nodes, 1, "double", prob.du, "p_du");

  omega = 0.9;
  op_decl_const(1, "double", &omega);

  if (opt.diags > 1)
    op_diagnostic_output();

  double cpu_t1, cpu_t2, wall_t1, wall_t2;
  op_timers(&cpu_t1, &wall_t1);

  double beta = 1.0, u_sum = 0.0, u_max = 0.0;
  for (int iter = 1; iter <= opt.iters; ++iter) {
    op_par_loop(res, "res", edges,
                op_arg_dat(p_A, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_u, 1, ppedge, 1, "double", OP_READ),
                op_arg_dat(p_du, 0, ppedge, 1, "double", OP_INC),
                op_arg_gbl(&beta, 1, "double", OP_READ));

    u_sum = 0.0;
    u_max = 0.0;
    op_par_loop(update, "update", nodes,
                op_arg_dat(p_r, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_du, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(p_u, -1, OP_ID, 1, "double", OP_RW),
                op_arg_gbl(&u_sum, 1, "double", OP_INC),
                op_arg_gbl(&u_max, 1, "double", OP_MAX));

    if (iter % 500 == 0)
      op_printf(" %5d  u_rms %.10e  u_max %.10e \n", iter,
                sqrt(u_sum / (double)prob.nnode), u_max);
  }

  op_timers(&cpu_t2, &wall_t2);

  op_fetch_data(p_u, prob.u);
  op_printf(" final u_sum = %.15e  u_max = %.15e \n", u_sum, u_max);
  const int n = prob.n;
  const int probe[4][2] = {{0, 0}, {n / 4, n / 4}, {n / 2, n / 2}, {n - 1, n / 2}};
  for (int k = 0; k < 4; ++k)
    op_printf(" u(%d,%d) = %.15e \n", probe[k][0], probe[k][1],
              prob.u[jac_node(&prob, probe[k][0], probe[k][1])]);

  op_timing_output();
  op_printf("Max total runtime = %f\n", wall_t2 - wall_t1);

  op_exit();
  jac_free(&prob); // after op_exit: OP2 may have adopted the arrays
  return 0;
}
