/*
 * ordered_loops.c -- loops whose elements would race on a dat's rows if
 * they ran side by side, which no colouring orders (tests/tests/threads.rs):
 *   "smooth"  v written directly (OP_RW) and read through the map to the
 *             next cell: each cell reads its neighbour, already updated or
 *             not as the element order says;
 *   "carry"   u read directly and incremented through that map: each cell
 *             reads what the cell before it added;
 *   "pass_on" w read through the map to the previous cell and incremented
 *             through the map to the next;
 *   "spread"  w incremented through both maps (coloured: runs in parallel).
 * libop2_openmp runs the first three in element order on one thread (one
 * line each says so) and the last on its threads; every value is checked
 * against a plain C loop in element order (halves and small integers:
 * exact), and the program prints PASSED or FAILED.
 */
#include <stdio.h>
#include <stdlib.h>

#include "op_seq.h"

#define N 60001

static void smooth(double *mine, const double *next) { *mine = 0.5 * (*mine + *next); }

static void carry(const double *mine, double *next) { *next += *mine > 2.0 ? 1.0 : 0.5; }

static void pass_on(const double *prev, double *next) { *next += *prev > 0.0 ? 0.5 : 1.0; }

static void spread(double *prev, double *next) {
  *prev += 0.5;
  *next += 1.0;
}

int main(int argc, char **argv) {
  static double v[N], u[N], w[N], vref[N], uref[N], wref[N];
  static int next[N], prev[N];
  for (int i = 0; i < N; i++) {
    next[i] = (i + 1) % N;
    prev[i] = (i + N - 1) % N;
    v[i] = vref[i] = (double)(i % 7);
    u[i] = uref[i] = 0.5 * (i % 5);
    w[i] = wref[i] = (double)(i % 3) - 1.0;
  }
  op_init(argc, argv, 1);
  op_set cells = op_decl_set(N, "cells");
  op_map to_next = op_decl_map(cells, cells, 1, next, "to_next");
  op_map to_prev = op_decl_map(cells, cells, 1, prev, "to_prev");
  op_dat dv = op_decl_dat(cells, 1, "double", v, "v");
  op_dat du = op_decl_dat(cells, 1, "double", u, "u");
  op_dat dw = op_decl_dat(cells, 1, "double", w, "w");
  int bad = 0;
  for (int rep = 0; rep < 2; rep++) {
    op_par_loop(smooth, "smooth", cells, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(dv, 0, to_next, 1, "double", OP_READ));
    for (int i = 0; i < N; i++)
      vref[i] = 0.5 * (vref[i] + vref[next[i]]);
    op_par_loop(carry, "carry", cells, op_arg_dat(du, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(du, 0, to_next, 1, "double", OP_INC));
    for (int i = 0; i < N; i++)
      uref[next[i]] += uref[i] > 2.0 ? 1.0 : 0.5;
    op_par_loop(pass_on, "pass_on", cells, op_arg_dat(dw, 0, to_prev, 1, "double", OP_READ),
                op_arg_dat(dw, 0, to_next, 1, "double", OP_INC));
    for (int i = 0; i < N; i++)
      wref[next[i]] += wref[prev[i]] > 0.0 ? 0.5 : 1.0;
    op_par_loop(spread, "spread", cells, op_arg_dat(dw, 0, to_prev, 1, "double", OP_INC),
                op_arg_dat(dw, 0, to_next, 1, "double", OP_INC));
    for (int i = 0; i < N; i++) {
      wref[prev[i]] += 0.5;
      wref[next[i]] += 1.0;
    }
  }
  op_fetch_data(dv, v);
  op_fetch_data(du, u);
  op_fetch_data(dw, w);
  for (int i = 0; i < N; i++)
    bad += (v[i] != vref[i]) + (u[i] != uref[i]) + (w[i] != wref[i]);
  op_exit();
  printf("%s (%d wrong values)\n", bad ? "FAILED" : "PASSED", bad);
  return bad != 0;
}
