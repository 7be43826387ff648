/*
 * opencl_fallback.c -- loops libop2_opencl cannot run on the device, beside
 * some it can (tests/tests/opencl_lib.rs):
 *   "doubled"  y = 2 x: runs on the device;
 *   "scaled"   reads a file-scope variable that was never declared with
 *              op_decl_const: the OpenCL compiler rejects the generated code;
 *   "hidden"   its kernel is defined through a macro, so its definition is
 *              not found in the source;
 *   "ends"     op_arg_idx through a map: runs on the device;
 *   "maxloc"   op_arg_info (the location of a maximum): runs on the device;
 *   "scratch"  an OP_WORK dat (written as OP_RW): runs on the device;
 *   "pair"     an OP_WORK global of 2 doubles (scratch per element): runs
 *              on the device;
 *   "lastx"    a global written with OP_WRITE (the last element's value
 *              wins on the host): the generator refuses it;
 *   "collapsed" OP_RW on both ends of edges, one of which has one cell at
 *              both ends: the kernel writes that cell through both
 *              pointers; runs on the device, the two pointers one copy of
 *              the row;
 *   "twice"    one dat passed twice directly, OP_READ and OP_RW: the kernel
 *              reads through one pointer what it wrote through the other;
 *   "around"   one dat read directly and through a map from cells to cells
 *              (both OP_READ): runs on the device;
 *   "smooth"   one dat written directly (OP_RW) and read through that map:
 *              each cell reads a neighbour that may have been updated
 *              before it, in the order of the host's sequence.
 * Each loop runs twice; the results are checked against plain C loops and
 * the program prints PASSED or FAILED.
 */
#include <stdio.h>

#include "op_seq.h"

#define N 1000

static double scale = 3.0;

static void doubled(const double *x, double *y) { *y = 2.0 * *x; }

static void scaled(const double *x, double *y) { *y = scale * *x; }

#define ADD_ONE_KERNEL(name)                                                                      \
  static void name(const double *x, double *y) { *y = *x + 1.0; }
ADD_ONE_KERNEL(hidden)

static void ends(const int *i0, const int *i1, int *out) { *out = *i0 * 10000 + *i1; }

static void scratch(const double *x, double *w, double *y) {
  *w = 2.0 * *x;
  *y = *w + 1.0;
}

static void pair(const double *x, double *t, double *y) {
  t[0] = *x;
  t[1] = 3.0 * t[0];
  *y = t[0] + t[1];
}

static void lastx(const double *x, double *g) { *g = *x; }

static void collapsed(double *a, double *b) {
  *a += 1.0;
  *b += 10.0;
}

static void twice(const double *a, double *b) {
  *b = 2.0 * *b;
  *b += *a;
}

static void around(const double *mine, const double *other, double *out) {
  *out = *mine - 0.5 * *other;
}

static void smooth(double *mine, const double *other) { *mine = 0.5 * (*mine + *other); }

static void maxloc(const double *x, const int *i, double *m, int *loc) {
  if (*x > *m) {
    *m = *x;
    *loc = *i;
  }
}

int main(int argc, char **argv) {
  static double x[N], y[N], w[N], z[N], zref[N], v[N], vref[N];
  static int e2n[2 * N], c2c[2 * N], out[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.5 * i;
    e2n[2 * i] = i;
    e2n[2 * i + 1] = (i + 1) % N;
    /* cell i and cell N - 1 - i, but edge 7 has cell 7 at both ends */
    c2c[2 * i] = i;
    c2c[2 * i + 1] = i == 7 ? 7 : N - 1 - i;
    v[i] = vref[i] = 0.25 * (i % 17);
  }
  op_init(argc, argv, 1);
  op_set cells = op_decl_set(N, "cells");
  op_set edges = op_decl_set(N, "edges");
  op_map e_c = op_decl_map(edges, cells, 2, e2n, "e_c");
  op_map c_c = op_decl_map(cells, cells, 2, c2c, "c_c");
  op_dat dx = op_decl_dat(cells, 1, "double", x, "x");
  op_dat dy = op_decl_dat(cells, 1, "double", y, "y");
  op_dat dw = op_decl_dat(cells, 1, "double", w, "w");
  op_dat dout = op_decl_dat(edges, 1, "int", out, "out");
  op_dat dz = op_decl_dat(cells, 1, "double", z, "z");
  op_dat dv = op_decl_dat(cells, 1, "double", v, "v");
  int bad = 0;
  for (int rep = 0; rep < 2; rep++) {
    op_par_loop(doubled, "doubled", cells, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(dy, y);
    for (int i = 0; i < N; i++)
      bad += y[i] != 2.0 * x[i];
    op_par_loop(scaled, "scaled", cells, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(dy, y);
    for (int i = 0; i < N; i++)
      bad += y[i] != scale * x[i];
    op_par_loop(hidden, "hidden", cells, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(dy, y);
    for (int i = 0; i < N; i++)
      bad += y[i] != x[i] + 1.0;
    op_par_loop(ends, "ends", edges, op_arg_idx(0, e_c), op_arg_idx(1, e_c),
                op_arg_dat(dout, -1, OP_ID, 1, "int", OP_WRITE));
    op_fetch_data(dout, out);
    for (int i = 0; i < N; i++)
      bad += out[i] != e2n[2 * i] * 10000 + e2n[2 * i + 1];
    double m = -1.0;
    int loc = -1;
    op_par_loop(maxloc, "maxloc", cells, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_idx(-1, OP_ID), op_arg_gbl(&m, 1, "double", OP_MAX),
                op_arg_info(&loc, 1, "int", 2));
    bad += m != 0.5 * (N - 1) || loc != N - 1;
    op_par_loop(scratch, "scratch", cells, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dw, -1, OP_ID, 1, "double", OP_WORK),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(dy, y);
    for (int i = 0; i < N; i++)
      bad += y[i] != 2.0 * x[i] + 1.0;
    double t[2] = {-7.5, -7.5};
    op_par_loop(pair, "pair", cells, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(t, 2, "double", OP_WORK),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(dy, y);
    for (int i = 0; i < N; i++)
      bad += y[i] != 4.0 * x[i];
    double g = -1.0;
    op_par_loop(lastx, "lastx", cells, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&g, 1, "double", OP_WRITE));
    bad += g != x[N - 1];
    for (int i = 0; i < N; i++) {
      zref[c2c[2 * i]] += 1.0;
      zref[c2c[2 * i + 1]] += 10.0;
    }
    op_par_loop(collapsed, "collapsed", cells, op_arg_dat(dz, 0, c_c, 1, "double", OP_RW),
                op_arg_dat(dz, 1, c_c, 1, "double", OP_RW));
    op_fetch_data(dz, z);
    for (int i = 0; i < N; i++)
      bad += z[i] != zref[i];
    op_par_loop(twice, "twice", cells, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dv, -1, OP_ID, 1, "double", OP_RW));
    for (int i = 0; i < N; i++)
      vref[i] = 4.0 * vref[i];
    op_par_loop(around, "around", cells, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dv, 1, c_c, 1, "double", OP_READ),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(dy, y);
    for (int i = 0; i < N; i++)
      bad += y[i] != vref[i] - 0.5 * vref[c2c[2 * i + 1]];
    op_par_loop(smooth, "smooth", cells, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(dv, 1, c_c, 1, "double", OP_READ));
    for (int i = 0; i < N; i++)
      vref[i] = 0.5 * (vref[i] + vref[c2c[2 * i + 1]]);
    op_fetch_data(dv, v);
    for (int i = 0; i < N; i++)
      bad += v[i] != vref[i];
  }
  op_timing_output();
  op_exit();
  printf("%s (%d wrong values)\n", bad ? "FAILED" : "PASSED", bad);
  return bad != 0;
}
