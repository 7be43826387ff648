// quadvec_ref.cpp -- quadvec.cpp as plain loops, without OP2: the same
// kernels, called in set order with pointer arrays built per cell, as OP2's
// sequential op_par_loop does. Correctness reference and speed baseline.
#include <sys/time.h>

double dt;

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
  quadvec_mesh m = quadvec_build(opt);
  printf(" quadvec: %d x %d cells, %d nodes, %d iterations \n", opt.nx, opt.ny, m.nnode,
         opt.iters);
  std::vector<double> uv((size_t)m.nnode, 0.0), rv((size_t)m.nnode, 0.0);
  dt = 0.2;
  const int *cell = m.cell.data();
  const double *x = m.x.data(), *f = m.f.data();
  double *u = uv.data(), *r = rv.data();

  const int every = opt.iters >= 10 ? opt.iters / 10 : 1;
  double t0 = wall_seconds();
  for (int iter = 1; iter <= opt.iters; ++iter) {
    for (int c = 0; c < m.ncell; ++c) {
      const int *cn = cell + 4 * c;
      const double *px[4] = {x + 2 * cn[0], x + 2 * cn[1], x + 2 * cn[2], x + 2 * cn[3]};
      const double *pu[4] = {&u[cn[0]], &u[cn[1]], &u[cn[2]], &u[cn[3]]};
      double *pr[4] = {&r[cn[0]], &r[cn[1]], &r[cn[2]], &r[cn[3]]};
      quad_res(px, pu, pr);
    }
    double rms = 0.0;
    for (int n = 0; n < m.nnode; ++n)
      node_update(&f[n], &u[n], &r[n], &rms);
    if (iter % every == 0)
      printf(" %d  %.17e \n", iter, sqrt(rms / m.nnode));
  }
  double t1 = wall_seconds();

  double usum = 0.0;
  for (double v : uv)
    usum += v;
  printf(" u sum: %.17e \n", usum);
  printf("Max total runtime = %f\n", t1 - t0);
  return 0;
}
