/* Linked through find_package(OP2) or pkg-config against libop2_cuda: on a
   device (or the simulated one, OP2_RS_DEVICE=host) a dat gets a device copy
   equal to its data; with no device op_init stops with one line. */
#include "op_seq.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  double v[4] = {1.0, 2.0, 3.0, 4.0};
  op_set s = op_decl_set(4, "s");
  op_dat d = op_decl_dat(s, 1, "double", v, "d");
  int ok = d->data_d != NULL && d->dirty_hd == 0;
  op_exit();
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
