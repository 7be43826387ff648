/*
 * conditionals -- kernels whose source depends on preprocessor conditionals
 * (kernels.h): a definition chosen by a #define of this file, a body by a
 * value from settings.h, and one by a -D flag of the build line
 * (-DBUILD_MODE=4; tests/tests/opencl_lib.rs builds it so). Each loop's
 * answers are checked against the same kernel called on the host; prints
 * PASSED or FAILED with the count of wrong values.
 */
#include <stdio.h>

#include "op_seq.h"

#include "settings.h"
#define SCALE_TWICE
#include "kernels.h"

#define N 300

static int check(op_dat dy, const double *x, double *y, void (*k)(const double *, double *),
                 const char *name) {
  double want;
  int bad = 0;
  op_fetch_data(dy, y);
  for (int i = 0; i < N; i++) {
    k(&x[i], &want);
    bad += y[i] != want;
  }
  if (bad) printf("wrong: %s, %d values\n", name, bad);
  return bad;
}

int main(int argc, char **argv) {
  static double x[N], y[N];
  for (int i = 0; i < N; i++) x[i] = 0.125 * i - 7.0;
  op_init(argc, argv, 1);
  op_set nodes = op_decl_set(N, "nodes");
  op_dat dx = op_decl_dat(nodes, 1, "double", x, "x");
  op_dat dy = op_decl_dat(nodes, 1, "double", y, "y");
  int bad = 0;
  op_par_loop(scale, "scale", nodes, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
  bad += check(dy, x, y, scale, "scale");
  op_par_loop(shift, "shift", nodes, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
  bad += check(dy, x, y, shift, "shift");
  op_par_loop(mode, "mode", nodes, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
  bad += check(dy, x, y, mode, "mode");
  op_timing_output();
  op_exit();
  printf("%s (%d wrong values)\n", bad ? "FAILED" : "PASSED", bad);
  return bad != 0;
}
