// jac_ref.cpp -- jac.cpp without OP2: the same kernels called from plain
// loops in element order.  Prints the same result lines (bitwise equal to a
// sequential OP2 run).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

double omega;

#include "jac_setup.h"
#include "res.h"
#include "update.h"

static double wall_seconds() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return (double)tv.tv_sec + 1.0e-6 * (double)tv.tv_usec;
}

int main(int argc, char **argv) {
  jac_options opt = jac_parse_args(argc, argv);

  jac_problem prob;
  if (jac_build(opt.n, &prob) != 0) {
    printf("out of memory\n");
    return 1;
  }
  printf(" jacobi: %d x %d interior nodes, %d matrix entries, %d "
         "iterations \n",
         prob.n, prob.n, prob.nedge, opt.iters);

  omega = 0.9;

  const double t0 = wall_seconds();
  double beta = 1.0, u_sum = 0.0, u_max = 0.0;
  for (int iter = 1; iter <= opt.iters; ++iter) {
    for (int e = 0; e < prob.nedge; ++e)
      res(&prob.A[e], &prob.u[prob.pp[2 * e + 1]], &prob.du[prob.pp[2 * e]],
          &beta);

    u_sum = 0.0;
    u_max = 0.0;
    for (int v = 0; v < prob.nnode; ++v)
      update(&prob.r[v], &prob.du[v], &prob.u[v], &u_sum, &u_max);

    if (iter % 500 == 0)
      printf(" %5d  u_rms %.10e  u_max %.10e \n", iter,
             sqrt(u_sum / (double)prob.nnode), u_max);
  }
  const double t1 = wall_seconds();

  printf(" final u_sum = %.15e  u_max = %.15e \n", u_sum, u_max);
  const int n = prob.n;
  const int probe[4][2] = {{0, 0}, {n / 4, n / 4}, {n / 2, n / 2}, {n - 1, n / 2}};
  for (int k = 0; k < 4; ++k)
    printf(" u(%d,%d) = %.15e \n", probe[k][0], probe[k][1],
           prob.u[jac_node(&prob, probe[k][0], probe[k][1])]);

  printf("Max total runtime = %f\n", t1 - t0);
  jac_free(&prob);
  return 0;
}
