/*
 * two_maps.c -- one dat reached through two maps, or twice through one, in
 * one loop (tests/tests/opencl_lib.rs, cuda_emu.rs, the GPU bundle): edges
 * reach cells through "left" (cell e) and "right" (cell 7e + 3 mod N, a
 * permutation; never cell e itself, as 6e + 3 is odd and N even), so a
 * cell is one edge's left and another's right:
 *   "both"     z read and written (OP_RW, adding only) through both maps;
 *   "both_inc" y incremented through both maps;
 *   "gather"   q read through both maps, a direct result written;
 *   "pinched"  p read and written (adding) at both ends of "ends", whose
 *              every 100th edge has one cell at both ends: the kernel
 *              writes that cell through both pointers, which a device
 *              hands one copy of the row.
 * A device library stages each row of a dat once, whatever maps reach it,
 * and colours by the dat's rows: two copies of one row (one per map) would
 * each keep their own updates. The kernels are in kernels.h. Each loop
 * runs twice; every value (small integers and halves: exact) is checked
 * against a plain C loop, and the program prints PASSED or FAILED.
 */
#include <stdio.h>
#include <stdlib.h>

#include "op_seq.h"

#include "kernels.h"

#define N 20000

int main(int argc, char **argv) {
  static double z[N], zr[N], y[N], yr[N], q[N], g[N], p[N], pr[N];
  static int left[N], right[N], ends[2 * N];
  for (int i = 0; i < N; i++) {
    left[i] = i;
    right[i] = (int)((7LL * i + 3) % N);
    q[i] = 0.5 * (i % 9);
    ends[2 * i] = i;
    ends[2 * i + 1] = i % 100 == 0 ? i : (i + 1) % N;
  }
  op_init(argc, argv, 1);
  op_set cells = op_decl_set(N, "cells");
  op_set edges = op_decl_set(N, "edges");
  op_map ml = op_decl_map(edges, cells, 1, left, "left");
  op_map mr = op_decl_map(edges, cells, 1, right, "right");
  op_map me = op_decl_map(edges, cells, 2, ends, "ends");
  op_dat dz = op_decl_dat(cells, 1, "double", z, "z");
  op_dat dy = op_decl_dat(cells, 1, "double", y, "y");
  op_dat dq = op_decl_dat(cells, 1, "double", q, "q");
  op_dat dg = op_decl_dat(edges, 1, "double", g, "g");
  op_dat dp = op_decl_dat(cells, 1, "double", p, "p");
  int bad = 0;
  for (int rep = 0; rep < 2; rep++) {
    op_par_loop(both, "both", edges, op_arg_dat(dz, 0, ml, 1, "double", OP_RW),
                op_arg_dat(dz, 0, mr, 1, "double", OP_RW));
    op_par_loop(both_inc, "both_inc", edges, op_arg_dat(dy, 0, ml, 1, "double", OP_INC),
                op_arg_dat(dy, 0, mr, 1, "double", OP_INC));
    op_par_loop(gather, "gather", edges, op_arg_dat(dq, 0, ml, 1, "double", OP_READ),
                op_arg_dat(dq, 0, mr, 1, "double", OP_READ),
                op_arg_dat(dg, -1, OP_ID, 1, "double", OP_WRITE));
    op_par_loop(pinched, "pinched", edges, op_arg_dat(dp, 0, me, 1, "double", OP_RW),
                op_arg_dat(dp, 1, me, 1, "double", OP_RW));
    for (int e = 0; e < N; e++) {
      pr[ends[2 * e]] += 1.0;
      pr[ends[2 * e + 1]] += 10.0;
      zr[left[e]] += 1.0;
      zr[right[e]] += 10.0;
      yr[left[e]] += 0.5;
      yr[right[e]] += 4.0;
    }
    op_fetch_data(dz, z);
    op_fetch_data(dy, y);
    op_fetch_data(dg, g);
    op_fetch_data(dp, p);
    for (int i = 0; i < N; i++)
      bad += (z[i] != zr[i]) + (y[i] != yr[i]) + (g[i] != q[left[i]] - 2.0 * q[right[i]]) +
             (p[i] != pr[i]);
  }
  op_timing_output();
  op_exit();
  printf("%s (%d wrong values)\n", bad ? "FAILED" : "PASSED", bad);
  return bad != 0;
}
