/*
 * bad_input.c -- one misuse of the OP2 C API per case, chosen by argv[1].
 *
 * Every case sets up a small valid mesh, prints "BEFORE", makes exactly one
 * bad call and then prints "UNREACHABLE". The library must stop the program
 * at the bad call with one line on stderr,
 *     OP2 error in <call> (<object>): <what is wrong>
 * and exit status 1; kernels print "KERNEL RAN", which must never appear.
 * tests/tests/bad_input.rs runs each case and checks all of that.
 *
 * Built as C99 (sizes are the only type information the C99 macros have) and
 * as C11 (the macros name the pointer's type with _Generic): the dat_type*
 * and gbl_type cases expect different messages from the two builds.
 */
#include <stdio.h>
#include <string.h>

#include "op_seq.h"

static void k1(double *a) {
  (void)a;
  printf("KERNEL RAN\n");
}

static void k2(const double *a, double *b) {
  (void)a;
  (void)b;
  printf("KERNEL RAN\n");
}

/* The mesh every case starts from: 4 nodes, 3 edges, edges -> nodes. */
static int edge_map[6] = {0, 1, 1, 2, 2, 3};
static double xdata[8] = {0, 1, 2, 3, 4, 5, 6, 7};
static double wdata[3] = {1, 2, 3};

static op_set nodes, edges;
static op_map pedge;
static op_dat x, w;

static void setup(int argc, char **argv) {
  op_init(argc, argv, 0);
  nodes = op_decl_set(4, "nodes");
  edges = op_decl_set(3, "edges");
  pedge = op_decl_map(edges, nodes, 2, edge_map, "pedge");
  x = op_decl_dat(nodes, 2, "double", xdata, "x");
  w = op_decl_dat(edges, 1, "double", wdata, "w");
}

/* Not flushed: the library must not lose buffered output when it stops. */
static void before(void) { printf("BEFORE\n"); }

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";

  /* Cases that must run before op_init. */
  if (strcmp(c, "before_init") == 0) {
    before();
    op_decl_set(3, "early");
    printf("UNREACHABLE\n");
    return 0;
  }

  setup(argc, argv);
  before();

  if (strcmp(c, "none") == 0) {
    /* Control: the same set-up and a valid loop reach the end. */
    op_par_loop(k2, "fine", edges, op_arg_dat(x, 0, pedge, 2, "double", OP_READ),
                op_arg_dat(w, -1, OP_ID, 1, "double", OP_RW));
  } else if (strcmp(c, "map_out_of_range") == 0) {
    int bad[6] = {0, 1, 1, 7, 2, 3};
    op_decl_map(edges, nodes, 2, bad, "pbad");
  } else if (strcmp(c, "map_negative") == 0) {
    int bad[6] = {0, 1, 1, 2, -2, 3};
    op_decl_map(edges, nodes, 2, bad, "pneg");
  } else if (strcmp(c, "map_dim_zero") == 0) {
    op_decl_map(edges, nodes, 0, edge_map, "pzero");
  } else if (strcmp(c, "map_null_array") == 0) {
    op_decl_map(edges, nodes, 2, NULL, "pnull");
  } else if (strcmp(c, "map_null_from") == 0) {
    op_decl_map(NULL, nodes, 2, edge_map, "pfrom");
  } else if (strcmp(c, "map_null_to") == 0) {
    op_decl_map(edges, NULL, 2, edge_map, "pto");
  } else if (strcmp(c, "set_negative") == 0) {
    op_decl_set(-3, "cells");
  } else if (strcmp(c, "dat_null_set") == 0) {
    op_decl_dat(NULL, 2, "double", xdata, "orphan");
  } else if (strcmp(c, "dat_dim_zero") == 0) {
    op_decl_dat(nodes, 0, "double", xdata, "flat");
  } else if (strcmp(c, "dat_type") == 0) {
    /* C99 sees sizeof(float) = 4 against "double" (8); C11 sees float*. */
    float f[4] = {0, 0, 0, 0};
    op_decl_dat(nodes, 1, "double", f, "xf");
  } else if (strcmp(c, "dat_type_same_size") == 0) {
    /* Same size, wrong type: only C11's _Generic can tell (build as C11). */
    float f[4] = {0, 0, 0, 0};
    op_decl_dat(nodes, 1, "int", f, "xf");
  } else if (strcmp(c, "arg_dim") == 0) {
    op_arg_dat(x, -1, OP_ID, 3, "double", OP_READ);
  } else if (strcmp(c, "arg_type") == 0) {
    op_arg_dat(x, -1, OP_ID, 2, "float", OP_READ);
  } else if (strcmp(c, "arg_type_buffer_reused") == 0) {
    /* type strings in buffers: more addresses than the library remembers,
       all valid, then the last buffer's text changed (the library must
       read it again, not trust the address) */
    static char bufs[3000][8];
    for (int i = 0; i < 3000; i++) {
      strcpy(bufs[i], "double");
      op_arg_dat(x, -1, OP_ID, 2, bufs[i], OP_READ);
    }
    strcpy(bufs[2999], "float");
    op_arg_dat(x, -1, OP_ID, 2, bufs[2999], OP_READ);
  } else if (strcmp(c, "arg_access") == 0) {
    op_arg_dat(x, -1, OP_ID, 2, "double", 9);
  } else if (strcmp(c, "arg_min_on_dat") == 0) {
    op_arg_dat(x, -1, OP_ID, 2, "double", OP_MIN);
  } else if (strcmp(c, "arg_direct_idx") == 0) {
    op_arg_dat(x, 0, OP_ID, 2, "double", OP_READ);
  } else if (strcmp(c, "arg_null_dat") == 0) {
    op_arg_dat(NULL, -1, OP_ID, 2, "double", OP_READ);
  } else if (strcmp(c, "arg_idx_too_big") == 0) {
    op_arg_dat(x, 2, pedge, 2, "double", OP_READ);
  } else if (strcmp(c, "arg_idx_too_negative") == 0) {
    op_arg_dat(x, -3, pedge, 2, "double", OP_READ);
  } else if (strcmp(c, "arg_idx_minus_one_with_map") == 0) {
    op_arg_dat(x, -1, pedge, 2, "double", OP_READ);
  } else if (strcmp(c, "arg_map_to_wrong_set") == 0) {
    /* pedge goes to nodes, w lives on edges */
    op_arg_dat(w, 0, pedge, 1, "double", OP_READ);
  } else if (strcmp(c, "arg_freed_temp") == 0) {
    op_dat t = op_decl_dat_temp(nodes, 1, "double", (double *)NULL, "tmp");
    op_free_dat_temp(t);
    op_arg_dat(t, -1, OP_ID, 1, "double", OP_READ);
  } else if (strcmp(c, "arg_idx_map_range") == 0) {
    op_arg_idx(2, pedge);
  } else if (strcmp(c, "arg_idx_direct") == 0) {
    op_arg_idx(0, OP_ID);
  } else if (strcmp(c, "gbl_null") == 0) {
    op_arg_gbl((double *)NULL, 1, "double", OP_INC);
  } else if (strcmp(c, "arg_type_null") == 0) {
    op_arg_dat(x, -1, OP_ID, 2, (const char *)NULL, OP_READ);
  } else if (strcmp(c, "gbl_type_null") == 0) {
    double g = 0;
    op_arg_gbl(&g, 1, (const char *)NULL, OP_INC);
  } else if (strcmp(c, "gbl_dim_zero") == 0) {
    double g = 0;
    op_arg_gbl(&g, 0, "double", OP_INC);
  } else if (strcmp(c, "gbl_type") == 0) {
    /* C99 sees sizeof(int) = 4 against "double"; C11 sees int*. */
    int i = 0;
    op_arg_gbl(&i, 1, "double", OP_INC);
  } else if (strcmp(c, "loop_direct_wrong_set") == 0) {
    /* x lives on nodes, the loop runs over edges */
    op_par_loop(k1, "kdirect", edges, op_arg_dat(x, -1, OP_ID, 2, "double", OP_RW));
  } else if (strcmp(c, "loop_map_from_wrong_set") == 0) {
    /* pedge maps from edges, the loop runs over nodes */
    op_par_loop(k2, "kfrom", nodes, op_arg_dat(x, 0, pedge, 2, "double", OP_READ),
                op_arg_dat(x, -1, OP_ID, 2, "double", OP_RW));
  } else if (strcmp(c, "loop_null_set") == 0) {
    op_par_loop(k1, "knull", NULL, op_arg_dat(w, -1, OP_ID, 1, "double", OP_RW));
  } else if (strcmp(c, "loop_null_kernel") == 0) {
    op_arg a[1];
    a[0] = op_arg_dat(w, -1, OP_ID, 1, "double", OP_RW);
    op2_par_loop_c(NULL, "nokernel", edges, 1, a);
  } else if (strcmp(c, "loop_zero_args") == 0) {
    op2_par_loop_c((op2_kernel_fn)k1, "k0", edges, 0, NULL);
  } else if (strcmp(c, "loop_65_args") == 0) {
    op_arg a[65];
    int i;
    for (i = 0; i < 65; i++)
      a[i] = op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ);
    op2_par_loop_c((op2_kernel_fn)k1, "k65", edges, 65, a);
  } else if (strcmp(c, "loop_bad_argtype") == 0) {
    /* an op_arg no constructor made (argtype 99) */
    op_arg a[1];
    memset(a, 0, sizeof a);
    a[0].argtype = 99;
    a[0].opt = 1;
    op2_par_loop_c((op2_kernel_fn)k1, "kgarbage", edges, 1, a);
  } else if (strcmp(c, "free_non_temp") == 0) {
    op_free_dat_temp(x);
  } else if (strcmp(c, "fetch_idx_high") == 0) {
    double buf[16];
    op_fetch_data_idx(x, buf, 0, 4);
  } else if (strcmp(c, "fetch_idx_low") == 0) {
    double buf[16];
    op_fetch_data_idx(x, buf, -1, 2);
  } else if (strcmp(c, "fetch_idx_reversed") == 0) {
    double buf[16];
    op_fetch_data_idx(x, buf, 3, 1);
  } else if (strcmp(c, "fetch_wrong_size") == 0) {
    int buf[16];
    op_fetch_data(x, buf);
  } else if (strcmp(c, "txt_unknown_type") == 0) {
    char raw[12] = {0};
    op_dat u = op_decl_dat_char(nodes, 1, "my_t", 3, raw, "u");
    op_print_dat_to_txtfile(u, "u.txt");
  } else if (strcmp(c, "dat_alloc") == 0) {
    /* 2^30 elements x dim 2^20 x 8 bytes = 8 PiB: no allocator gives that */
    op_set huge = op_decl_set(1 << 30, "huge");
    op_decl_dat(huge, 1 << 20, "double", (double *)NULL, "big");
  } else if (strcmp(c, "dat_size_overflow") == 0) {
    /* (2^31 - 1)^2 x 8 bytes does not fit in 64 bits */
    op_set huge = op_decl_set(2147483647, "huge");
    op_decl_dat(huge, 2147483647, "double", xdata, "big");
  } else if (strcmp(c, "map_alloc") == 0) {
    op_set huge = op_decl_set(1 << 30, "huge");
    op_decl_map(huge, nodes, 1 << 20, edge_map, "bigmap");
  } else if (strcmp(c, "map_long_alloc") == 0) {
    /* op_decl_map_long narrows to 32 bits first: that copy is checked too */
    static long long lmap[4] = {0, 1, 1, 2};
    op_set huge = op_decl_set(1 << 30, "huge");
    op_decl_map_long(huge, nodes, 1 << 20, lmap, "bigmap");
  } else if (strcmp(c, "map_size_overflow") == 0) {
    op_set huge = op_decl_set(2147483647, "huge");
    op_decl_map(huge, nodes, 2147483647, edge_map, "bigmap");
  } else if (strcmp(c, "dat_type_spelling") == 0) {
    /* C11 only: C99 cannot tell "doubel" from a user type */
    op_decl_dat(nodes, 2, "doubel", xdata, "xs");
  } else if (strcmp(c, "dat_temp_type_spelling") == 0) {
    op_decl_dat_temp(nodes, 1, "dbl", (double *)NULL, "tmps");
  } else if (strcmp(c, "gbl_type_spelling") == 0) {
    int i = 0;
    op_arg_gbl(&i, 1, "int32", OP_INC);
  } else if (strcmp(c, "const_type_spelling") == 0) {
    float f = 1.0f;
    op_decl_const2("fc", 1, "single", &f);
  } else if (strcmp(c, "user_type_accepted") == 0) {
    /* a struct pointer: any type string is a user type, and the program goes on */
    struct pair {
      double a, b;
    } pairs[4];
    op_decl_dat(nodes, 1, "pair_t", pairs, "pairs");
    op_arg_gbl(pairs, 1, "pair_t", OP_READ);
    printf("USER TYPE OK\n");
    return 0;
  } else if (strcmp(c, "op2_spellings") == 0) {
    double d8[8] = {0};
    float f4[4] = {0};
    int i4[4] = {0};
    const char *dn[] = {"double", "double:soa", "r8", "real(8)", "real*8", "double precision"};
    const char *fn[] = {"float", "float:soa", "r4", "real(4)", "real*4", "real"};
    const char *in[] = {"int", "int:soa", "i4", "integer(4)", "integer*4", "integer"};
    int k;
    for (k = 0; k < 6; k++) {
      op_decl_dat(nodes, 2, dn[k], d8, "ds");
      op_decl_dat(nodes, 1, fn[k], f4, "fs");
      op_decl_dat(nodes, 1, in[k], i4, "is");
      op_arg_gbl(d8, 1, dn[k], OP_READ);
      op_arg_gbl(f4, 1, fn[k], OP_READ);
      op_arg_gbl(i4, 1, in[k], OP_READ);
    }
    printf("SPELLINGS OK\n");
    return 0;
  } else if (strcmp(c, "init_twice") == 0) {
    op_init(argc, argv, 0);
  } else if (strcmp(c, "after_exit") == 0) {
    op_exit();
    op_decl_set(3, "late");
  } else {
    fprintf(stderr, "bad_input: unknown case '%s'\n", c);
    return 3;
  }

  printf("UNREACHABLE\n");
  op_exit();
  return 0;
}
