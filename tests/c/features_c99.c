/*
 * features_c99.c -- the feature checks of features_common.h through OP2's C
 * spellings (op_par_loop with C kernels, the C99 macros op_decl_dat,
 * op_arg_gbl, op_fetch_data, ...), plus a loop of 64 arguments, the most a C
 * kernel may take. Prints PASS/FAIL lines; exit status 1 if any check failed.
 */
#include "features_common.h"

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  run_common_checks();
  check_64_args();
  op_exit();
  printf("DONE %d failures\n", g_failures);
  return g_failures != 0;
}
