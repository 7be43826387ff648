/* abi.c -- the layout of op2_arg_view and the values of its constants as a C
   compiler sees them (include/op2_rs_generated.h); tests/tests/abi.rs
   compares them with the Rust definitions (core/src/invoke.rs). */
#include <stddef.h>
#include <stdio.h>

#include "op_seq.h"

#define FIELD(f) printf("offset %s %zu %zu\n", #f, offsetof(op2_arg_view, f), sizeof(((op2_arg_view *)0)->f))

int main(void) {
  printf("size %zu align %zu\n", sizeof(op2_arg_view), _Alignof(op2_arg_view));
  FIELD(data);
  FIELD(map);
  FIELD(map_dim);
  FIELD(idx);
  FIELD(elem_bytes);
  FIELD(kind);
  FIELD(map_slot);
  FIELD(access);
  FIELD(flags);
  printf("kind DIRECT %d\n", (int)OP2_VIEW_KIND_DIRECT);
  printf("kind INDIRECT %d\n", (int)OP2_VIEW_KIND_INDIRECT);
  printf("kind VECTOR %d\n", (int)OP2_VIEW_KIND_VECTOR);
  printf("kind GLOBAL %d\n", (int)OP2_VIEW_KIND_GLOBAL);
  printf("kind IDX_DIRECT %d\n", (int)OP2_VIEW_KIND_IDX_DIRECT);
  printf("kind IDX_MAPPED %d\n", (int)OP2_VIEW_KIND_IDX_MAPPED);
  printf("kind NULL %d\n", (int)OP2_VIEW_KIND_NULL);
  printf("flag LOCAL %d\n", OP2_VIEW_LOCAL);
  printf("flag EXCLUSIVE %d\n", OP2_VIEW_EXCLUSIVE);
  return 0;
}
