/* A program linked against libop2_cuda that defines no op_decl_const_char
 * (no generated code): it must link, and with no CUDA driver or device op_init
 * must stop with one line and a non-zero status. */
#include "op_seq.h"

#include <stdio.h>

int main(int argc, char **argv) {
  printf("BEFORE\n");
  fflush(stdout);
  op_init(argc, argv, 1);
  printf("UNREACHABLE unless a device is present\n");
  op_exit();
  return 0;
}
