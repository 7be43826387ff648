/*
 * jac_c.c -- the Jacobi example (../jac/jac.cpp) written in plain C99
 * against the same OP2 spellings:
 *
 *   op_init / op_decl_set / op_decl_map / op_decl_dat / op_decl_const /
 *   op_par_loop(kernel, "name", set, op_arg_dat(...), op_arg_gbl(...)) /
 *   op_fetch_data / op_timers / op_timing_output / op_exit
 *
 * Kernels are ordinary C functions taking pointers (../jac/res.h and
 * ../jac/update.h, shared with the C++ versions).  After the OP2 run the
 * same iteration is repeated with plain loops on private copies of the
 * data and u, u_sum, u_max are compared (a sequential backend visits the
 * elements in order and must agree bit for bit; the pass criterion allows
 * the rounding of a reordered OP_INC).  Prints PASSED or FAILED, exit
 * status 1 on failure.  Options as for jac: --n=N --iters=N --diags=N.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* relaxation factor, declared to OP2 as a global constant */
double omega;

#include "op_seq.h"

#include "jac_setup.h"
#include "res.h"
#include "update.h"

/* The reference: the same sweeps as plain loops. */
static void plain_jacobi(const jac_problem *p, int iters, double *u,
                         double *du, double *u_sum, double *u_max) {
  double beta = 1.0;
  *u_sum = 0.0;
  *u_max = 0.0;
  for (int iter = 1; iter <= iters; iter++) {
    for (int e = 0; e < p->nedge; e++)
      res(&p->A[e], &u[p->pp[2 * e + 1]], &du[p->pp[2 * e]], &beta);
    *u_sum = 0.0;
    *u_max = 0.0;
    for (int v = 0; v < p->nnode; v++)
      update(&p->r[v], &du[v], &u[v], u_sum, u_max);
  }
}

int main(int argc, char **argv) {
  jac_options opt = jac_parse_args(argc, argv);
  jac_problem prob;
  double *u_plain, *du_plain;
  double cpu_t1, cpu_t2, wall_t1, wall_t2;
  double beta = 1.0, u_sum = 0.0, u_max = 0.0;
  double ref_sum, ref_max;
  int mismatches = 0;

  op_init(argc, argv, opt.diags);

  if (jac_build(opt.n, &prob) != 0) {
    op_printf("out of memory\n");
    op_exit();
    return 1;
  }
  /* private copies of the initial state for the plain-loop check */
  u_plain = (double *)malloc(sizeof(double) * (size_t)prob.nnode);
  du_plain = (double *)malloc(sizeof(double) * (size_t)prob.nnode);
  if (u_plain == NULL || du_plain == NULL) {
    op_printf("out of memory\n");
    op_exit();
    return 1;
  }
  memcpy(u_plain, prob.u, sizeof(double) * (size_t)prob.nnode);
  memcpy(du_plain, prob.du, sizeof(double) * (size_t)prob.nnode);

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

  op_timers(&cpu_t1, &wall_t1);

  for (int iter = 1; iter <= opt.iters; iter++) {
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
                sqrt(u_sum / (double)op_get_size(nodes)), u_max);
  }

  op_timers(&cpu_t2, &wall_t2);

  op_fetch_data(p_u, prob.u);
  op_printf(" final u_sum = %.15e  u_max = %.15e \n", u_sum, u_max);
  {
    const int n = prob.n;
    const int probe[4][2] = {
        {0, 0}, {n / 4, n / 4}, {n / 2, n / 2}, {n - 1, n / 2}};
    for (int k = 0; k < 4; k++)
      op_printf(" u(%d,%d) = %.15e \n", probe[k][0], probe[k][1],
                prob.u[jac_node(&prob, probe[k][0], probe[k][1])]);
  }

  /* plain-loop check: a sequential backend must agree bit for bit; a
   * parallel one may sum the OP_INC contributions in another order, so
   * the pass criterion is a tight relative tolerance */
  plain_jacobi(&prob, opt.iters, u_plain, du_plain, &ref_sum, &ref_max);
  {
    double max_diff = 0.0, tol = 1e-10 * (ref_max > 0.0 ? ref_max : 1.0);
    int identical = (ref_sum == u_sum && ref_max == u_max);
    for (int v = 0; v < prob.nnode; v++) {
      double d = fabs(u_plain[v] - prob.u[v]);
      if (u_plain[v] != prob.u[v])
        identical = 0;
      if (d > max_diff)
        max_diff = d;
      if (!(d <= tol))
        mismatches++;
    }
    if (!(fabs(ref_sum - u_sum) <= 1e-10 * fabs(ref_sum)) ||
        !(fabs(ref_max - u_max) <= tol))
      mismatches++;
    op_printf(" plain-loop check: max |u - u_plain| = %.3e, bitwise "
              "identical: %s\n",
              max_diff, identical ? "yes" : "no");
  }
  op_printf("%s\n", mismatches == 0 ? "PASSED" : "FAILED");

  op_timing_output();
  op_printf("Max total runtime = %f\n", wall_t2 - wall_t1);

  op_exit();
  free(u_plain);
  free(du_plain);
  jac_free(&prob); /* after op_exit: OP2 may have adopted the arrays */
  return mismatches == 0 ? 0 : 1;
}
