// bad_input_cpp.cpp -- misuses only the C++ templates can catch (the element
// type behind a pointer, the kernel's parameter types), one per argv[1].
// Same protocol as bad_input.c: "BEFORE", one bad call, "UNREACHABLE";
// kernels print "KERNEL RAN".
#include <cstdio>
#include <cstring>

#include "op_seq.h"

static void k_int(int *a) {
  (void)a;
  std::printf("KERNEL RAN\n");
}

static void k_double(double *a) {
  (void)a;
  std::printf("KERNEL RAN\n");
}

static void k_vec_as_ptr(const double *a, double *b) {
  (void)a;
  (void)b;
  std::printf("KERNEL RAN\n");
}

static void k_ptrptr(const double **a, double *b) {
  (void)a;
  (void)b;
  std::printf("KERNEL RAN\n");
}

static void k_gbl_float(const double *a, float *g) {
  (void)a;
  (void)g;
  std::printf("KERNEL RAN\n");
}

static void k_idx_double(const double *idx) {
  (void)idx;
  std::printf("KERNEL RAN\n");
}

static int edge_map[6] = {0, 1, 1, 2, 2, 3};
static double xdata[8] = {0, 1, 2, 3, 4, 5, 6, 7};
static double wdata[3] = {1, 2, 3};

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  op_init(argc, argv, 0);
  op_set nodes = op_decl_set(4, "nodes");
  op_set edges = op_decl_set(3, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, edge_map, "pedge");
  op_dat x = op_decl_dat(nodes, 2, "double", xdata, "x");
  op_dat w = op_decl_dat(edges, 1, "double", wdata, "w");
  std::printf("BEFORE\n"); // not flushed: the library must not lose it

  if (!std::strcmp(c, "none")) {
    // Control: a correctly typed loop runs (3 edges, 3 kernel calls).
    op_par_loop(k_double, "fine", edges, op_arg_dat(w, -1, OP_ID, 1, "double", OP_RW));
  } else if (!std::strcmp(c, "dat_type")) {
    float f[4] = {0, 0, 0, 0};
    op_decl_dat(nodes, 1, "double", f, "xf");
  } else if (!std::strcmp(c, "dat_temp_type")) {
    op_decl_dat_temp(nodes, 1, "float", (double *)nullptr, "tmpf");
  } else if (!std::strcmp(c, "const_type")) {
    double g = 1.0;
    op_decl_const2("g", 1, "int", &g);
  } else if (!std::strcmp(c, "gbl_type")) {
    int i = 0;
    op_arg_gbl(&i, 1, "double", OP_INC);
  } else if (!std::strcmp(c, "dat_type_spelling")) {
    op_decl_dat(nodes, 2, "doubel", xdata, "xs");
  } else if (!std::strcmp(c, "dat_temp_type_spelling")) {
    op_decl_dat_temp(nodes, 1, "dbl", (double *)nullptr, "tmps");
  } else if (!std::strcmp(c, "gbl_type_spelling")) {
    long long g = 0;
    op_arg_gbl(&g, 1, "long long int", OP_INC);
  } else if (!std::strcmp(c, "const_type_spelling")) {
    int k = 1;
    op_decl_const2("k", 1, "i32", &k);
  } else if (!std::strcmp(c, "user_type_accepted")) {
    // a struct pointer: any type string is a user type, and the program goes on
    struct pair {
      double a, b;
    } pairs[4] = {};
    op_decl_dat(nodes, 1, "pair_t", pairs, "pairs");
    op_arg_gbl(pairs, 1, "pair_t", OP_READ);
    std::printf("USER TYPE OK\n");
    op_exit();
    return 0;
  } else if (!std::strcmp(c, "op2_spellings")) {
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
    std::printf("SPELLINGS OK\n");
    op_exit();
    return 0;
  } else if (!std::strcmp(c, "fetch_type")) {
    float f[8];
    op_fetch_data(x, f);
  } else if (!std::strcmp(c, "kernel_param_type")) {
    // kernel takes int*, the dat holds doubles
    op_par_loop(k_int, "kint", edges, op_arg_dat(w, -1, OP_ID, 1, "double", OP_RW));
  } else if (!std::strcmp(c, "kernel_gbl_param_type")) {
    // kernel takes float* for a double global
    double g = 0.0;
    op_par_loop(k_gbl_float, "kgbl", edges, op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&g, 1, "double", OP_INC));
  } else if (!std::strcmp(c, "kernel_vector_as_ptr")) {
    // a vector argument (idx -2) needs const double**, the kernel takes const double*
    op_par_loop(k_vec_as_ptr, "kvec", edges, op_arg_dat(x, -2, pedge, 2, "double", OP_READ),
                op_arg_dat(w, -1, OP_ID, 1, "double", OP_RW));
  } else if (!std::strcmp(c, "kernel_ptrptr_not_vector")) {
    // the kernel takes const double** for a plain indirect argument
    op_par_loop(k_ptrptr, "kpp", edges, op_arg_dat(x, 0, pedge, 2, "double", OP_READ),
                op_arg_dat(w, -1, OP_ID, 1, "double", OP_RW));
  } else if (!std::strcmp(c, "kernel_idx_type")) {
    // op_arg_idx gives an int, the kernel takes const double*
    op_par_loop(k_idx_double, "kidx", edges, op_arg_idx(-1, OP_ID));
  } else {
    std::fprintf(stderr, "bad_input_cpp: unknown case '%s'\n", c);
    return 3;
  }

  std::printf("UNREACHABLE\n");
  op_exit();
  return 0;
}
