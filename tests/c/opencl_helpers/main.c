/*
 * opencl_helpers -- two things OP2-Common's apps do that device code must
 * follow (tests/tests/opencl_lib.rs): a kernel calls a helper and uses a
 * type its header does not define (helpers.h, included by this file
 * before kernels.h), and
 * a kernel increments a direct OP_INC argument and then reads it. Checked
 * against a plain C loop; prints PASSED or FAILED. Then u is printed to
 * u.txt and fetched: the device copy comes back once.
 */
#include <stdio.h>

#include "op_seq.h"

#include "helpers.h"
#include "kernels.h"

#define N 500

int main(int argc, char **argv) {
  static double r[N], u[N], ref[N];
  for (int i = 0; i < N; i++) {
    r[i] = (double)(i % 17);
    u[i] = ref[i] = 0.25 * i;
  }
  op_init(argc, argv, 1);
  op_set nodes = op_decl_set(N, "nodes");
  op_dat dr = op_decl_dat(nodes, 1, "double", r, "r");
  op_dat du = op_decl_dat(nodes, 1, "double", u, "u");
  double umax = 0.0, want = 0.0;
  for (int it = 0; it < 3; it++) {
    op_par_loop(step, "step", nodes, op_arg_dat(dr, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(du, -1, OP_ID, 1, "double", OP_INC),
                op_arg_gbl(&umax, 1, "double", OP_MAX));
    for (int i = 0; i < N; i++) {
      ref[i] += 0.5 * r[i];
      want = biggest(want, ref[i]);
    }
  }
  /* the device holds the fresh u: printing it brings it back once, the
     fetch after it moves nothing (OP2_RS_DEVICE_STATS counts) */
  op_print_dat_to_txtfile(du, "u.txt");
  op_fetch_data(du, u);
  int bad = umax != want;
  for (int i = 0; i < N; i++)
    bad += u[i] != ref[i];
  op_timing_output();
  op_exit();
  printf("%s (%d wrong values, max %g)\n", bad ? "FAILED" : "PASSED", bad, umax);
  return bad != 0;
}
