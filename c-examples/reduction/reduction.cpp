// reduction.cpp -- exercises global reductions (op_arg_gbl with OP_INC,
// OP_MIN, OP_MAX) for double, float and int, in
//   loop 1: a direct loop over cells (cell data),
//   loop 2: an indirect loop over cells reading node data through the
//           cell -> node map (map columns 0..3 as separate arguments),
//   loop 3: an indirect loop using a vector argument (all 4 map columns in
//           one op_arg_dat with idx = -4) plus a dim-2 OP_INC reduction,
//   loop 4: an empty set (reductions must leave the initial values alone),
//   loop 5: OP_READ globals of dim 1 and 3 feeding an OP_WRITE dat.
// Every result is compared with a plain loop computed in this program.
// Integer results and MIN/MAX must match exactly; floating-point sums are
// allowed the rounding slack of a reordered summation (a parallel backend
// may add in a different order).  Prints PASSED or FAILED; the exit status
// is non-zero on failure.
//
// Options: --nx=N --ny=N (cells in each direction, default 60 x 40),
//          --diags=N; arguments containing "OP_" go to the OP2 runtime.
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "op_seq.h"

// ---------------------------------------------------------------------------
// kernels
// ---------------------------------------------------------------------------

// loop 1: direct, one value of each type per cell
inline void cell_stats(const double *d, const float *f, const int *i,
                       double *dsum, double *dmin, double *dmax, float *fsum,
                       float *fmin, float *fmax, int *isum, int *imin,
                       int *imax) {
  *dsum += *d;
  if (*d < *dmin)
    *dmin = *d;
  if (*d > *dmax)
    *dmax = *d;
  *fsum += *f;
  if (*f < *fmin)
    *fmin = *f;
  if (*f > *fmax)
    *fmax = *f;
  *isum += *i;
  if (*i < *imin)
    *imin = *i;
  if (*i > *imax)
    *imax = *i;
}

// loop 2: indirect, the 4 corner values reached through the map
inline void corner_stats(const double *d0, const double *d1, const double *d2,
                         const double *d3, const int *i0, const int *i1,
                         const int *i2, const int *i3, double *dsum,
                         double *dmin, double *dmax, int *isum, int *imin,
                         int *imax) {
  const double dv = (*d0 + *d1) + (*d2 + *d3); // cell average * 4
  const int spread_lo = (*i0 < *i1 ? *i0 : *i1) - (*i2 > *i3 ? *i2 : *i3);
  *dsum += dv;
  if (dv < *dmin)
    *dmin = dv;
  if (dv > *dmax)
    *dmax = dv;
  *isum += *i0 + *i1 + *i2 + *i3;
  if (spread_lo < *imin)
    *imin = spread_lo;
  if (spread_lo > *imax)
    *imax = spread_lo;
}

// loop 3: vector argument f[k] = float node value at corner k
inline void corner_vec_stats(const float **f, float *fsum, float *fmin,
                             float *fmax, double *range_sum) {
  float lo = *f[0], hi = *f[0];
  for (int k = 1; k < 4; ++k) {
    if (*f[k] < lo)
      lo = *f[k];
    if (*f[k] > hi)
      hi = *f[k];
  }
  *fsum += hi - lo;
  if (lo < *fmin)
    *fmin = lo;
  if (hi > *fmax)
    *fmax = hi;
  range_sum[0] += (double)lo;
  range_sum[1] += (double)hi;
}

// loop 5: OP_READ globals, dim 1 and 3
inline void scale_shift(const double *d, const double *factor,
                        const double *shift3, double *out) {
  *out = (*factor) * (*d) + shift3[0] - shift3[1] * shift3[2];
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

// small deterministic generator (64-bit LCG, high bits)
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static double next_unit() {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg_state >> 11) * (1.0 / 9007199254740992.0);
}

static int failures = 0;

static void check_exact_d(const char *what, double got, double want) {
  bool ok = (got == want);
  op_printf("  %-28s %24.17g  %s\n", what, got, ok ? "ok" : "MISMATCH");
  if (!ok) {
    op_printf("    expected %24.17g\n", want);
    failures++;
  }
}

static void check_exact_i(const char *what, int got, int want) {
  bool ok = (got == want);
  op_printf("  %-28s %24d  %s\n", what, got, ok ? "ok" : "MISMATCH");
  if (!ok) {
    op_printf("    expected %24d\n", want);
    failures++;
  }
}

// sum of n terms whose magnitudes add up to `abs_total`, accumulated in a
// type with unit roundoff `unit`: any summation order stays within
// n * unit * abs_total of any other (first-order bound)
static void check_sum(const char *what, double got, double want, long n,
                      double abs_total, double unit) {
  double tol = (double)(n + 1) * unit * abs_total;
  bool ok = fabs(got - want) <= tol;
  op_printf("  %-28s %24.17g  %s\n", what, got, ok ? "ok" : "MISMATCH");
  if (!ok) {
    op_printf("    expected %24.17g (tolerance %g)\n", want, tol);
    failures++;
  }
}

// "--name=VALUE": store VALUE in *v and return true
static bool int_option(const char *arg, const char *name, int *v) {
  size_t len = strlen(name);
  if (strncmp(arg, name, len) != 0 || arg[len] != '=')
    return false;
  *v = atoi(arg + len + 1);
  return true;
}

// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
  int nx = 60, ny = 40, diags = 0;
  for (int a = 1; a < argc; ++a) {
    if (strstr(argv[a], "OP_") != NULL)
      continue;
    if (!int_option(argv[a], "--nx", &nx) &&
        !int_option(argv[a], "--ny", &ny) &&
        !int_option(argv[a], "--diags", &diags)) {
      fprintf(stderr, "usage: %s [--nx=N] [--ny=N] [--diags=N]\n", argv[0]);
      return 2;
    }
  }
  if (nx < 1 || ny < 1) {
    fprintf(stderr, "--nx and --ny must be positive\n");
    return 2;
  }

  op_init(argc, argv, diags);

  // --- a structured quad mesh stored as cells -> nodes -------------------
  const int ncell = nx * ny;
  const int nnode = (nx + 1) * (ny + 1);
  std::vector<int> c2n(4 * (size_t)ncell);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      int c = j * nx + i, n = j * (nx + 1) + i;
      c2n[4 * c + 0] = n;
      c2n[4 * c + 1] = n + 1;
      c2n[4 * c + 2] = n + nx + 2;
      c2n[4 * c + 3] = n + nx + 1;
    }

  std::vector<double> cd(ncell), nd(nnode);
  std::vector<float> cf(ncell), nf(nnode);
  std::vector<int> ci(ncell), ni(nnode);
  for (int c = 0; c < ncell; ++c) {
    cd[c] = 200.0 * next_unit() - 100.0;
    cf[c] = (float)(50.0 * next_unit() - 20.0);
    ci[c] = (int)(2001.0 * next_unit()) - 1000;
  }
  for (int n = 0; n < nnode; ++n) {
    nd[n] = 1.0e3 * next_unit() - 250.0;
    nf[n] = (float)(10.0 * next_unit() - 5.0);
    ni[n] = (int)(401.0 * next_unit()) - 200;
  }

  op_set cells = op_decl_set(ncell, "cells");
  op_set nodes = op_decl_set(nnode, "nodes");
  op_set empty = op_decl_set(0, "empty");
  op_map pcell = op_decl_map(cells, nodes, 4, c2n.data(), "pcell");
  op_dat p_cd = op_decl_dat(cells, 1, "double", cd.data(), "p_cd");
  op_dat p_cf = op_decl_dat(cells, 1, "float", cf.data(), "p_cf");
  op_dat p_ci = op_decl_dat(cells, 1, "int", ci.data(), "p_ci");
  op_dat p_nd = op_decl_dat(nodes, 1, "double", nd.data(), "p_nd");
  op_dat p_nf = op_decl_dat(nodes, 1, "float", nf.data(), "p_nf");
  op_dat p_ni = op_decl_dat(nodes, 1, "int", ni.data(), "p_ni");
  std::vector<double> out0(ncell, 0.0);
  op_dat p_out = op_decl_dat(cells, 1, "double", out0.data(), "p_out");
  op_dat p_edd = op_decl_dat(empty, 1, "double", (double *)NULL, "p_edd");
  op_dat p_edf = op_decl_dat(empty, 1, "float", (float *)NULL, "p_edf");
  op_dat p_edi = op_decl_dat(empty, 1, "int", (int *)NULL, "p_edi");

  op_printf(" reduction test: %d cells, %d nodes\n", ncell, nnode);

  // --- loop 1: direct ----------------------------------------------------
  {
    double dsum = 0.0, dmin = DBL_MAX, dmax = -DBL_MAX;
    float fsum = 0.0f, fmin = FLT_MAX, fmax = -FLT_MAX;
    int isum = 0, imin = INT_MAX, imax = INT_MIN;
    op_par_loop(cell_stats, "cell_stats", cells,
                op_arg_dat(p_cd, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_cf, -1, OP_ID, 1, "float", OP_READ),
                op_arg_dat(p_ci, -1, OP_ID, 1, "int", OP_READ),
                op_arg_gbl(&dsum, 1, "double", OP_INC),
                op_arg_gbl(&dmin, 1, "double", OP_MIN),
                op_arg_gbl(&dmax, 1, "double", OP_MAX),
                op_arg_gbl(&fsum, 1, "float", OP_INC),
                op_arg_gbl(&fmin, 1, "float", OP_MIN),
                op_arg_gbl(&fmax, 1, "float", OP_MAX),
                op_arg_gbl(&isum, 1, "int", OP_INC),
                op_arg_gbl(&imin, 1, "int", OP_MIN),
                op_arg_gbl(&imax, 1, "int", OP_MAX));

    double rdsum = 0.0, rdmin = DBL_MAX, rdmax = -DBL_MAX, dabs = 0.0;
    float rfsum = 0.0f, rfmin = FLT_MAX, rfmax = -FLT_MAX;
    double fabs_total = 0.0;
    int risum = 0, rimin = INT_MAX, rimax = INT_MIN;
    for (int c = 0; c < ncell; ++c) {
      rdsum += cd[c];
      dabs += fabs(cd[c]);
      rdmin = cd[c] < rdmin ? cd[c] : rdmin;
      rdmax = cd[c] > rdmax ? cd[c] : rdmax;
      rfsum += cf[c];
      fabs_total += fabs((double)cf[c]);
      rfmin = cf[c] < rfmin ? cf[c] : rfmin;
      rfmax = cf[c] > rfmax ? cf[c] : rfmax;
      risum += ci[c];
      rimin = ci[c] < rimin ? ci[c] : rimin;
      rimax = ci[c] > rimax ? ci[c] : rimax;
    }
    op_printf(" loop 1 (direct, cells):\n");
    check_sum("double OP_INC", dsum, rdsum, ncell, dabs, DBL_EPSILON);
    check_exact_d("double OP_MIN", dmin, rdmin);
    check_exact_d("double OP_MAX", dmax, rdmax);
    check_sum("float  OP_INC", fsum, rfsum, ncell, fabs_total, FLT_EPSILON);
    check_exact_d("float  OP_MIN", fmin, rfmin);
    check_exact_d("float  OP_MAX", fmax, rfmax);
    check_exact_i("int    OP_INC", isum, risum);
    check_exact_i("int    OP_MIN", imin, rimin);
    check_exact_i("int    OP_MAX", imax, rimax);
  }

  // --- loop 2: indirect, map columns as separate args --------------------
  // Non-trivial start values: INC adds to them, and the MIN/MAX start
  // values take part in the comparison (imax starts above every result).
  {
    double dsum = 0.5, dmin = 0.0, dmax = 0.0;
    int isum = 1000, imin = 0, imax = 100000;
    op_par_loop(corner_stats, "corner_stats", cells,
                op_arg_dat(p_nd, 0, pcell, 1, "double", OP_READ),
                op_arg_dat(p_nd, 1, pcell, 1, "double", OP_READ),
                op_arg_dat(p_nd, 2, pcell, 1, "double", OP_READ),
                op_arg_dat(p_nd, 3, pcell, 1, "double", OP_READ),
                op_arg_dat(p_ni, 0, pcell, 1, "int", OP_READ),
                op_arg_dat(p_ni, 1, pcell, 1, "int", OP_READ),
                op_arg_dat(p_ni, 2, pcell, 1, "int", OP_READ),
                op_arg_dat(p_ni, 3, pcell, 1, "int", OP_READ),
                op_arg_gbl(&dsum, 1, "double", OP_INC),
                op_arg_gbl(&dmin, 1, "double", OP_MIN),
                op_arg_gbl(&dmax, 1, "double", OP_MAX),
                op_arg_gbl(&isum, 1, "int", OP_INC),
                op_arg_gbl(&imin, 1, "int", OP_MIN),
                op_arg_gbl(&imax, 1, "int", OP_MAX));

    double rdsum = 0.5, rdmin = 0.0, rdmax = 0.0, dabs = 0.5;
    int risum = 1000, rimin = 0, rimax = 100000;
    for (int c = 0; c < ncell; ++c) {
      const int *q = &c2n[4 * c];
      corner_stats(&nd[q[0]], &nd[q[1]], &nd[q[2]], &nd[q[3]], &ni[q[0]],
                   &ni[q[1]], &ni[q[2]], &ni[q[3]], &rdsum, &rdmin, &rdmax,
                   &risum, &rimin, &rimax);
      dabs += fabs((nd[q[0]] + nd[q[1]]) + (nd[q[2]] + nd[q[3]]));
    }
    op_printf(" loop 2 (indirect, cells -> nodes):\n");
    check_sum("double OP_INC", dsum, rdsum, ncell, dabs, DBL_EPSILON);
    check_exact_d("double OP_MIN", dmin, rdmin);
    check_exact_d("double OP_MAX", dmax, rdmax);
    check_exact_i("int    OP_INC", isum, risum);
    check_exact_i("int    OP_MIN", imin, rimin);
    check_exact_i("int    OP_MAX (start kept)", imax, rimax);
  }

  // --- loop 3: indirect with a vector argument, dim-2 reduction ----------
  {
    float fsum = 0.0f, fmin = 1.0f, fmax = -1.0f;
    double range[2] = {0.0, 0.0};
    op_par_loop(corner_vec_stats, "corner_vec_stats", cells,
                op_arg_dat(p_nf, -4, pcell, 1, "float", OP_READ),
                op_arg_gbl(&fsum, 1, "float", OP_INC),
                op_arg_gbl(&fmin, 1, "float", OP_MIN),
                op_arg_gbl(&fmax, 1, "float", OP_MAX),
                op_arg_gbl(range, 2, "double", OP_INC));

    float rfsum = 0.0f, rfmin = 1.0f, rfmax = -1.0f;
    double rrange[2] = {0.0, 0.0}, fabs_total = 0.0, rabs = 0.0;
    for (int c = 0; c < ncell; ++c) {
      const float *corner[4];
      for (int k = 0; k < 4; ++k)
        corner[k] = &nf[c2n[4 * c + k]];
      float before = rfsum;
      double r0 = rrange[0], r1 = rrange[1];
      corner_vec_stats(corner, &rfsum, &rfmin, &rfmax, rrange);
      fabs_total += fabs((double)(rfsum - before));
      rabs += fabs(rrange[0] - r0) + fabs(rrange[1] - r1);
    }
    op_printf(" loop 3 (indirect, vector argument):\n");
    check_sum("float  OP_INC", fsum, rfsum, ncell, fabs_total, FLT_EPSILON);
    check_exact_d("float  OP_MIN", fmin, rfmin);
    check_exact_d("float  OP_MAX", fmax, rfmax);
    check_sum("double[2] OP_INC [0]", range[0], rrange[0], ncell, rabs,
              DBL_EPSILON);
    check_sum("double[2] OP_INC [1]", range[1], rrange[1], ncell, rabs,
              DBL_EPSILON);
  }

  // --- loop 4: empty set -------------------------------------------------
  {
    double dsum = 1.25, dmin = -3.0, dmax = 7.0;
    float fsum = 2.5f, fmin = -1.5f, fmax = 4.5f;
    int isum = 42, imin = -42, imax = 4242;
    op_par_loop(cell_stats, "empty_stats", empty,
                op_arg_dat(p_edd, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_edf, -1, OP_ID, 1, "float", OP_READ),
                op_arg_dat(p_edi, -1, OP_ID, 1, "int", OP_READ),
                op_arg_gbl(&dsum, 1, "double", OP_INC),
                op_arg_gbl(&dmin, 1, "double", OP_MIN),
                op_arg_gbl(&dmax, 1, "double", OP_MAX),
                op_arg_gbl(&fsum, 1, "float", OP_INC),
                op_arg_gbl(&fmin, 1, "float", OP_MIN),
                op_arg_gbl(&fmax, 1, "float", OP_MAX),
                op_arg_gbl(&isum, 1, "int", OP_INC),
                op_arg_gbl(&imin, 1, "int", OP_MIN),
                op_arg_gbl(&imax, 1, "int", OP_MAX));
    op_printf(" loop 4 (empty set, values unchanged):\n");
    check_exact_d("double OP_INC", dsum, 1.25);
    check_exact_d("double OP_MIN", dmin, -3.0);
    check_exact_d("double OP_MAX", dmax, 7.0);
    check_exact_d("float  OP_INC", fsum, 2.5);
    check_exact_d("float  OP_MIN", fmin, -1.5);
    check_exact_d("float  OP_MAX", fmax, 4.5);
    check_exact_i("int    OP_INC", isum, 42);
    check_exact_i("int    OP_MIN", imin, -42);
    check_exact_i("int    OP_MAX", imax, 4242);
  }

  // --- loop 5: OP_READ globals -----------------------------------------
  {
    double factor = -2.0, shift3[3] = {10.0, 3.0, 0.5};
    op_par_loop(scale_shift, "scale_shift", cells,
                op_arg_dat(p_cd, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&factor, 1, "double", OP_READ),
                op_arg_gbl(shift3, 3, "double", OP_READ),
                op_arg_dat(p_out, -1, OP_ID, 1, "double", OP_WRITE));
    std::vector<double> got(ncell);
    op_fetch_data(p_out, got.data());
    int wrong = 0;
    for (int c = 0; c < ncell; ++c) {
      double want;
      scale_shift(&cd[c], &factor, shift3, &want);
      if (got[c] != want)
        wrong++;
    }
    op_printf(" loop 5 (OP_READ globals, dim 1 and 3):\n");
    check_exact_i("wrong cells", wrong, 0);
    check_exact_d("global left unchanged", factor, -2.0);
  }

  op_printf("%s\n", failures == 0 ? "PASSED" : "FAILED");
  op_exit();
  return failures == 0 ? 0 : 1;
}
