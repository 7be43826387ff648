// airfoil_ref.cpp -- the airfoil time-marching solver written as a plain
// loop nest, without OP2.
//
// Every loop visits its elements in index order and calls the same kernel
// headers with the same pointers as OP2's sequential op_par_loop, so the rms
// history and the final q are bit-for-bit those of airfoil.cpp linked with a
// sequential OP2 library.  It is the correctness reference and the speed
// baseline for the OP2 version.  Command line: see airfoil_setup.h.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#include <vector>

// flow constants read by the kernels
double gam, gm1, cfl, eps, mach, alpha, qinf[4];

#include "airfoil_setup.h"

#include "adt_calc.h"
#include "bres_calc.h"
#include "res_calc.h"
#include "save_soln.h"
#include "update.h"

static double wall_seconds() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return (double)tv.tv_sec + 1.0e-6 * (double)tv.tv_usec;
}

// same layout as op_print_dat_to_binfile: int32 count, int32 dim, raw data
static int write_binfile(const char *path, const double *data, int count,
                         int dim) {
  FILE *fp = fopen(path, "wb");
  if (fp == nullptr)
    return -1;
  int32_t head[2] = {(int32_t)count, (int32_t)dim};
  size_t n = (size_t)count * (size_t)dim;
  int ok = fwrite(head, sizeof(int32_t), 2, fp) == 2 &&
           fwrite(data, sizeof(double), n, fp) == n;
  return (fclose(fp) == 0 && ok) ? 0 : -1;
}

int main(int argc, char **argv) {
  AirfoilOptions opt = airfoil_parse_args(argc, argv);

  printf("%s grid \n", opt.mesh_file ? "reading in" : "generating");
  naca_mesh m;
  airfoil_get_mesh(opt, &m);
  printf(" nodes %d, cells %d, edges %d, boundary edges %d \n", m.nnode,
         m.ncell, m.nedge, m.nbedge);

  printf("initialising flow field \n");
  airfoil_set_constants();

  const int ncell = m.ncell, nedge = m.nedge, nbedge = m.nbedge;
  const double *x = m.x;
  const int *cell = m.cell, *edge = m.edge, *ecell = m.ecell;
  const int *bedge = m.bedge, *becell = m.becell, *bound = m.bound;

  std::vector<double> q(4 * (size_t)ncell), qold(4 * (size_t)ncell),
      res(4 * (size_t)ncell, 0.0), adt((size_t)ncell);
  for (int c = 0; c < ncell; ++c)
    for (int k = 0; k < 4; ++k)
      q[4 * c + k] = qinf[k];

  double t0 = wall_seconds();
  double rms = 0.0;

  for (int iter = 1; iter <= opt.iters; ++iter) {
    for (int c = 0; c < ncell; ++c)
      save_soln(&q[4 * c], &qold[4 * c]);

    for (int stage = 0; stage < 2; ++stage) {
      for (int c = 0; c < ncell; ++c) {
        const int *cn = cell + 4 * c;
        adt_calc(x + 2 * cn[0], x + 2 * cn[1], x + 2 * cn[2], x + 2 * cn[3],
                 &q[4 * c], &adt[c]);
      }

      for (int e = 0; e < nedge; ++e) {
        const int n0 = edge[2 * e], n1 = edge[2 * e + 1];
        const int c0 = ecell[2 * e], c1 = ecell[2 * e + 1];
        res_calc(x + 2 * n0, x + 2 * n1, &q[4 * c0], &q[4 * c1], &adt[c0],
                 &adt[c1], &res[4 * c0], &res[4 * c1]);
      }

      for (int b = 0; b < nbedge; ++b) {
        const int n0 = bedge[2 * b], n1 = bedge[2 * b + 1];
        const int c = becell[b];
        bres_calc(x + 2 * n0, x + 2 * n1, &q[4 * c], &adt[c], &res[4 * c],
                  &bound[b]);
      }

      rms = 0.0;
      for (int c = 0; c < ncell; ++c)
        update(&qold[4 * c], &q[4 * c], &res[4 * c], &adt[c], &rms);
    }

    rms = sqrt(rms / (double)ncell);
    if (iter % 100 == 0)
      printf(" %d  %10.5e \n", iter, rms);
  }

  double t1 = wall_seconds();

  double qsum[4] = {0.0, 0.0, 0.0, 0.0};
  for (int c = 0; c < ncell; ++c)
    for (int k = 0; k < 4; ++k)
      qsum[k] += q[4 * c + k];
  printf(" q sums: %.15e %.15e %.15e %.15e \n", qsum[0], qsum[1], qsum[2],
         qsum[3]);

  if (opt.out_file != nullptr) {
    if (write_binfile(opt.out_file, q.data(), ncell, 4) != 0) {
      fprintf(stderr, "cannot write %s\n", opt.out_file);
      return 1;
    }
    printf(" wrote final q to %s \n", opt.out_file);
  }

  printf("Max total runtime = %f\n", t1 - t0);
  naca_mesh_free(&m);
  return 0;
}
